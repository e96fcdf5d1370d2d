/**
 * Evaluation runs: `repeats` independent passes over the environment's evaluation set with evaluation
 * sampling, each seeded on its own (lib/random.ts passSeed, executors/seeding.ts) and committed as its
 * own eval step (index = the pass); never updates weights. A resumed run does only the passes not yet
 * committed (the step key refuses a second commit), so a crash never loses or duplicates a pass. The
 * policy is a base model or a training run's checkpoint (executors/eval-policy.ts), on a Tinker-compatible
 * node or an inference-only (OpenAI-compatible) one. A restart of the policy node restarts the pass in
 * flight once the node answers again (worker/runner/node-restarts.ts); nothing of an interrupted pass is
 * committed.
 */
import type { RunConfig } from "../../../contracts/run-config";
import { checkpointVerdict, describeCheckpoint, describeProblems } from "../../../lib/launch-check";
import { passSeed } from "../../../lib/random";
import { spreadOf } from "../../../lib/reports/repeats";
import { runEvaluation } from "../../engine/step";
import type { RunEnvironment } from "../../envs";
import type { RunContext } from "../context";
import { resolveNode } from "../nodes";
import { whileDatabaseDown } from "../durable";
import { withNodeRestarts } from "../node-restarts";
import { commitStep } from "../persist";
import { auxiliaryClients, stepSummary, untilCancelled, withEnvironment, type ClientOverrides } from "./common";
import { evaluationPolicy } from "./eval-policy";
import { checkRunnable } from "./node-check";
import { seededPolicy } from "./seeding";

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
  const passes = ctx.config.repeats;
  const committed = new Set((await whileDatabaseDown(() => prisma.step.findMany({ where: { runId, kind: "eval" }, select: { index: true } }), wait)).map((s) => s.index));
  const todo = Array.from({ length: passes }, (_, i) => i + 1).filter((p) => !committed.has(p));
  if (todo.length === 0) {
    await ctx.log("info", passes > 1 ? `all ${passes} passes of the evaluation are already committed` : "evaluation already committed");
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
    // The checkpoint as the launch pinned it (the run's id and step in the stored config); checkRunnable refused a deleted one.
    const verdict = await whileDatabaseDown(() => checkpointVerdict(prisma, config, null), wait);
    if (config.policy.checkpoint && !verdict.checkpoint) throw new Error(`cannot run: ${describeProblems(verdict.problems)}`);
    const checkpoint = verdict.checkpoint;
    const source = evaluationPolicy(ctx, env, config, policyNode, checkpoint);
    signal.addEventListener("abort", () => source.close(), { once: true });
    try {
      const user = aux.userSimulator
        ? `, user simulator ${overrides.userSimulator ? "(test override)" : `${config.rollout.userSimulator!.model} on ${config.rollout.userSimulator!.node}`}`
        : "";
      const what = checkpoint ? `${describeCheckpoint(checkpoint)} (${checkpoint.via === "adapter" ? `as a LoRA adapter on node "${policyNode.name}"` : checkpoint.samplerPath})` : `${config.policy.model} on ${policyNode.name}`;
      await ctx.log(
        "info",
        `evaluating ${what}: ${instances.length} instance(s) of ${config.data.dataset} (${config.data.split} split) × ${config.trialsPerTask} trial(s)${passes > 1 ? ` × ${passes} passes` : ""}, ${config.rollout.paradigm} paradigm${user}${config.fidelityProbe ? ", fidelity probe on" : ""}`,
      );
      if (passes > 1 && committed.size > 0) await ctx.log("info", `resuming: passes ${[...committed].sort((a, b) => a - b).join(", ")} are committed; ${todo.length} to go`);
      if (config.testTime.enabled) {
        const s = config.testTime.sampling;
        await ctx.log(
          "info",
          `test-time rehearsal: ${config.testTime.attempts} private attempt(s) per task (${config.testTime.mode}), then one committed execution; sampling act ${s.act.temperature}/${s.act.topP}, rehearse ${s.rehearse.temperature}/${s.rehearse.topP}, assessment ${s.assessment.temperature}, memory ${s.memory.temperature}; private attempts contact nothing external`,
        );
      }
      for (const pass of todo) {
        const seed = passSeed(config.data.seed, pass);
        const label = passes > 1 ? `pass ${pass}/${passes}` : "the evaluation";
        const startedAt = new Date();
        // Episodes of all passes count toward the run's progress.
        const before = (pass - 1) * instances.length * Math.max(config.trialsPerTask, 1);
        let reported = -1;
        const onRolloutDone = (done: number, total: number) => {
          if (done === total || done - reported >= Math.max(1, Math.floor(total / 20))) {
            reported = done;
            ctx.progress(before + done, passes * total).catch(() => {});
          }
        };
        const result = await withNodeRestarts({
          node: { name: policyNode.name, kind: policyNode.kind, baseUrl: policyNode.baseUrl, apiKey: policyNode.apiKey },
          settings: policyNode.settings.restarts,
          report: ctx,
          signal,
          what: label,
          from: passes > 1 ? `the start of pass ${pass}` : "its start",
          reset: () => source.close(),
          attempt: async (watch) => {
            const opened = await untilCancelled(source.open(), signal);
            const sampled = watch.observe(seededPolicy(opened.policy, seed));
            // Test-time transcripts are bounded with the policy's own tokenizer when the node has one.
            const countTokens = opened.renderer ? (text: string) => opened.renderer!.countTokens(text) : undefined;
            try {
              const r = await untilCancelled(runEvaluation({ instances, config, policy: sampled, ...aux, countTokens, stepIndex: pass, runId, onRolloutDone }), signal);
              await source.recheck(); // a checkpoint that went missing during the pass fails it, uncommitted
              return r;
            } catch (e) {
              if (source.suspect()) await source.recheck();
              throw e;
            }
          },
        });
        Object.assign(result.metrics, env.evaluationMetrics?.(result));
        await commitStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", startedAt }, wait);
        const report = env.evaluationReport?.(result);
        await ctx.log("info", `${passes > 1 ? `${label} (seed ${seed})` : "evaluation"}: ${[report?.headline, stepSummary(result)].filter(Boolean).join("; ")}`);
        if (config.testTime.enabled && result.metrics["testtime/private_tokens/mean"] !== undefined) {
          await ctx.log("info", `test-time rehearsal: ${result.metrics["testtime/attempts"]} private attempt(s), ${Math.round(result.metrics["testtime/private_tokens/mean"])} private tokens per task on average`);
        }
        for (const line of report?.lines ?? []) await ctx.log("info", line);
      }
      if (passes > 1) await logAcrossPasses(ctx, passes, config.trialsPerTask);
    } finally {
      source.close();
    }
  });
}

/** One line over every committed pass: Avg@k (the mean of the passes' success rates) and its spread. */
async function logAcrossPasses(ctx: RunContext, passes: number, trials: number): Promise<void> {
  const steps = await whileDatabaseDown(() => ctx.prisma.step.findMany({ where: { runId: ctx.runId, kind: "eval" }, orderBy: { index: "asc" }, select: { metrics: true } }), { signal: ctx.signal });
  const key = `val/avg@${Math.max(trials, 1)}`;
  const values = steps.map((s) => (s.metrics as Record<string, unknown>)[key]).filter((v): v is number => typeof v === "number");
  const spread = spreadOf(values.map((v) => 100 * v));
  if (!spread) return;
  const f = (x: number) => x.toFixed(1);
  await ctx.log("info", `Avg@${passes * Math.max(trials, 1)} over ${spread.passes} passes: ${f(spread.mean)}% (min ${f(spread.min)}, max ${f(spread.max)}, std ${f(spread.std)}), from each pass's ${key}`);
}
