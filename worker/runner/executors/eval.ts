/**
 * Evaluation runs: one pass over the environment's evaluation set with evaluation sampling, committed
 * as one step; never updates weights. The policy may sit on a Tinker-compatible node or on an
 * inference-only (OpenAI-compatible) one.
 */
import type { RunConfig } from "../../../contracts/run-config";
import { runEvaluation } from "../../engine/step";
import type { RunEnvironment } from "../../envs";
import { throttledProgress, type RunContext } from "../context";
import { chatClientFor, resolveNode, trainingPolicyFor } from "../nodes";
import { persistStep } from "../persist";
import { auxiliaryClients, samplingPolicy, stepSummary, untilCancelled, withEnvironment, type ClientOverrides } from "./common";
import { checkNodes } from "./node-check";

/** The config an evaluation runs with: the environment may fix the paradigm (a benchmark that must run its real tools). */
function evaluationConfig(config: RunConfig, env: RunEnvironment): RunConfig {
  const forced = env.evaluationParadigm;
  if (!forced) return config;
  return { ...config, rollout: { ...config.rollout, paradigm: forced.paradigm, shadowExecution: false } };
}

export async function evalExecutor(ctx: RunContext, overrides: ClientOverrides = {}): Promise<void> {
  const { prisma, runId, signal } = ctx;
  await checkNodes(ctx, { reportProgress: false });
  const done = await prisma.step.findFirst({ where: { runId, kind: "eval", index: 1 }, select: { id: true } });
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

    const policyNode = await resolveNode(prisma, config.policy.node, "policy");
    // Nothing is trained: sample the base model through a sampling session (no LoRA model is created).
    const tinker =
      policyNode.kind === "openai" ? null : await trainingPolicyFor(policyNode, config.policy, undefined, (m) => void ctx.log("warn", m), { sampleOnly: true });
    const policy = samplingPolicy(env, tinker ? { protocol: "tinker", policy: tinker } : { protocol: "chat", chat: chatClientFor(policyNode, config.policy.model) });
    signal.addEventListener("abort", () => tinker?.close(), { once: true });
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
      // Test-time transcripts are bounded with the policy's own tokenizer when the node has one.
      const countTokens = tinker ? (text: string) => tinker.renderer.countTokens(text) : undefined;
      const result = await untilCancelled(
        runEvaluation({ instances, config, policy, ...aux, countTokens, stepIndex: 1, runId, onRolloutDone: throttledProgress(ctx) }),
        signal,
      );
      Object.assign(result.metrics, env.evaluationMetrics?.(result));
      await persistStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", startedAt });
      const report = env.evaluationReport?.(result);
      await ctx.log("info", `evaluation: ${[report?.headline, stepSummary(result)].filter(Boolean).join("; ")}`);
      if (config.testTime.enabled && result.metrics["testtime/private_tokens/mean"] !== undefined) {
        await ctx.log("info", `test-time rehearsal: ${result.metrics["testtime/attempts"]} private attempt(s), ${Math.round(result.metrics["testtime/private_tokens/mean"])} private tokens per task on average`);
      }
      for (const line of report?.lines ?? []) await ctx.log("info", line);
    } finally {
      tinker?.close();
    }
  });
}
