/**
 * Evaluation runs: one pass over the environment's evaluation set with evaluation sampling, committed
 * as one step; never updates weights. The policy may sit on a Tinker-compatible node or on an
 * inference-only (OpenAI-compatible) one. A restart of the policy node restarts the evaluation once the
 * node answers again (worker/runner/node-restarts.ts); nothing of an interrupted pass is committed.
 */
import type { RunConfig } from "../../../contracts/run-config";
import type { TinkerPolicy } from "../../clients/tinker-policy";
import type { PolicyClient } from "../../engine/io";
import { runEvaluation } from "../../engine/step";
import type { RunEnvironment } from "../../envs";
import { throttledProgress, type RunContext } from "../context";
import { chatClientFor, resolveNode, trainingPolicyFor } from "../nodes";
import { whileDatabaseDown } from "../durable";
import { withNodeRestarts } from "../node-restarts";
import { commitStep } from "../persist";
import { auxiliaryClients, samplingPolicy, stepSummary, untilCancelled, withEnvironment, type ClientOverrides } from "./common";
import { checkRunnable } from "./node-check";

/** The config an evaluation runs with: the environment may fix the paradigm (a benchmark that must run its real tools). */
function evaluationConfig(config: RunConfig, env: RunEnvironment): RunConfig {
  const forced = env.evaluationParadigm;
  if (!forced) return config;
  return { ...config, rollout: { ...config.rollout, paradigm: forced.paradigm, shadowExecution: false } };
}

export async function evalExecutor(ctx: RunContext, overrides: ClientOverrides = {}): Promise<void> {
  const { prisma, runId, signal } = ctx;
  const wait = { signal };
  await checkRunnable(ctx);
  const done = await whileDatabaseDown(() => prisma.step.findFirst({ where: { runId, kind: "eval", index: 1 }, select: { id: true } }), wait);
  if (done) {
    await ctx.log("info", "evaluation already committed");
    return;
  }
  await withEnvironment(ctx, async (env) => {
    const config = evaluationConfig(ctx.config, env);
    if (config.rollout.paradigm !== ctx.config.rollout.paradigm) {
      await ctx.log("info", `${env.evaluationParadigm!.why}: paradigm "${ctx.config.rollout.paradigm}" replaced by "${config.rollout.paradigm}"`);
    }
    const instances = env.evalSet();
    const aux = await auxiliaryClients(ctx, env, overrides);

    const policyNode = await whileDatabaseDown(() => resolveNode(prisma, config.policy.node, "policy"), wait);
    // The sampled policy; after a node restart it is opened again (a Tinker session the node forgot).
    // Nothing is trained: the base model is sampled through a sampling session (no LoRA model is created).
    let tinker: TinkerPolicy | null = null;
    let policy: PolicyClient | null = null;
    const open = async () => {
      if (policy) return policy;
      tinker =
        policyNode.kind === "openai" ? null : await trainingPolicyFor(policyNode, config.policy, undefined, (m) => void ctx.log("warn", m), { sampleOnly: true });
      policy = samplingPolicy(env, tinker ? { protocol: "tinker", policy: tinker } : { protocol: "chat", chat: chatClientFor(policyNode, config.policy.model) });
      return policy;
    };
    const close = () => {
      (tinker as TinkerPolicy | null)?.close();
      tinker = null;
      policy = null;
    };
    signal.addEventListener("abort", close, { once: true });
    try {
      const user = aux.userSimulator
        ? `, user simulator ${overrides.userSimulator ? "(test override)" : `${config.rollout.userSimulator!.model} on ${config.rollout.userSimulator!.node}`}`
        : "";
      await ctx.log(
        "info",
        `evaluating ${instances.length} instance(s) of ${config.data.dataset} (${config.data.split} split) × ${config.trialsPerTask} trial(s), ${config.rollout.paradigm} paradigm${user}${config.fidelityProbe ? ", fidelity probe on" : ""}`,
      );
      if (config.testTime.enabled) {
        const s = config.testTime.sampling;
        await ctx.log(
          "info",
          `test-time rehearsal: ${config.testTime.attempts} private attempt(s) per task (${config.testTime.mode}), then one committed execution; sampling act ${s.act.temperature}/${s.act.topP}, rehearse ${s.rehearse.temperature}/${s.rehearse.topP}, assessment ${s.assessment.temperature}, memory ${s.memory.temperature}; private attempts contact nothing external`,
        );
      }
      const startedAt = new Date();
      const result = await withNodeRestarts({
        node: { name: policyNode.name, kind: policyNode.kind, baseUrl: policyNode.baseUrl, apiKey: policyNode.apiKey },
        settings: policyNode.settings.restarts,
        report: ctx,
        signal,
        what: "the evaluation",
        from: "its start",
        reset: close,
        attempt: async (watch) => {
          const sampled = watch.observe(await untilCancelled(open(), signal));
          // Test-time transcripts are bounded with the policy's own tokenizer when the node has one.
          const renderer = (tinker as TinkerPolicy | null)?.renderer;
          const countTokens = renderer ? (text: string) => renderer.countTokens(text) : undefined;
          return untilCancelled(
            runEvaluation({ instances, config, policy: sampled, ...aux, countTokens, stepIndex: 1, runId, onRolloutDone: throttledProgress(ctx) }),
            signal,
          );
        },
      });
      Object.assign(result.metrics, env.evaluationMetrics?.(result));
      await commitStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", startedAt }, wait);
      const report = env.evaluationReport?.(result);
      await ctx.log("info", `evaluation: ${[report?.headline, stepSummary(result)].filter(Boolean).join("; ")}`);
      if (config.testTime.enabled && result.metrics["testtime/private_tokens/mean"] !== undefined) {
        await ctx.log("info", `test-time rehearsal: ${result.metrics["testtime/attempts"]} private attempt(s), ${Math.round(result.metrics["testtime/private_tokens/mean"])} private tokens per task on average`);
      }
      for (const line of report?.lines ?? []) await ctx.log("info", line);
    } finally {
      close();
    }
  });
}
