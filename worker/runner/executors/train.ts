/**
 * Training runs: the step loop around the pure engine. Each step's rows commit in one transaction
 * together with the training state saved after the update, so a run killed at any point resumes from
 * its last committed step and that step's state, with nothing duplicated or lost.
 */
import { runEvaluation, runTrainingStep, type StepResult } from "../../engine/step";
import type { ChatClient } from "../../engine/io";
import { CancelledError, throttledProgress, throwIfCancelled, type RunContext } from "../context";
import { instanceSource } from "../instances";
import { chatClientFor, resolveNode, trainingPolicyFor } from "../nodes";
import { keyMetricsOf, persistStep, resumePoint } from "../persist";
import { checkNodes } from "./node-check";
import { contextFittingPolicy, tau2EvalMetrics } from "../../envs/tau2";
import { tau2EvalExecutor, tau2UserSimulator } from "./tau2";

/** Await `p`, but give up as soon as the run is cancelled (the step's rows are then never committed). */
export function untilCancelled<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new CancelledError());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

export async function auxiliaryClients(ctx: RunContext): Promise<{ judge?: ChatClient; simulator?: ChatClient; userSimulator?: ChatClient }> {
  const { config } = ctx;
  const out: { judge?: ChatClient; simulator?: ChatClient; userSimulator?: ChatClient } = {};
  // tau2 retail: the user simulator answers every user turn (required for that dataset).
  if (config.data.dataset === "tau2:retail") out.userSimulator = await tau2UserSimulator(ctx);
  if (config.reward.judge) {
    const node = await resolveNode(ctx.prisma, config.reward.judge.node, "judge");
    out.judge = chatClientFor(node, config.reward.judge.model, config.reward.judgeTimeoutS * 1000);
  }
  if (config.rollout.simulator) {
    const node = await resolveNode(ctx.prisma, config.rollout.simulator.node, "tool simulator");
    out.simulator = chatClientFor(node, config.rollout.simulator.model, config.reward.judgeTimeoutS * 1000);
  }
  return out;
}

export function stepSummary(result: StepResult): string {
  const key = keyMetricsOf(result);
  const m = result.metrics;
  const parts = [
    `reward ${key["reward/mean"]?.toFixed(3) ?? "—"}`,
    key["fidelity/mean"] !== undefined ? `fidelity ${key["fidelity/mean"].toFixed(3)}` : null,
    m["critic/act/advantages/max"] !== undefined ? `act adv max ${m["critic/act/advantages/max"].toFixed(3)}` : null,
    m["perf/total_num_tokens"] !== undefined ? `${m["perf/total_num_tokens"]} tokens` : null,
    m["timing_s/step"] !== undefined ? `${m["timing_s/step"].toFixed(1)} s` : null,
  ];
  return parts.filter(Boolean).join(", ");
}

export async function trainExecutor(ctx: RunContext): Promise<void> {
  const { config, prisma, runId, signal } = ctx;
  await checkNodes(ctx, { reportProgress: false });
  const source = await instanceSource(prisma, config, (m) => void ctx.log("warn", m));
  const total = config.schedule.steps;
  const resume = await resumePoint(prisma, runId);
  if (resume.step >= total) {
    await ctx.log("info", `all ${total} steps already committed`);
    return;
  }
  if (resume.step > 0 && !resume.statePath) throw new Error(`cannot resume: step ${resume.step} has no saved training state`);

  const policyNode = await resolveNode(prisma, config.policy.node, "policy");
  const policy = await trainingPolicyFor(policyNode, config.policy, resume.statePath ?? undefined, (m) => void ctx.log("warn", m));
  signal.addEventListener("abort", () => policy.close(), { once: true });
  if (policy.profile === "envace-embedded" && config.policy.loraRank !== 32)
    await ctx.log("info", `the embedded node trains all weights of ${config.policy.model}; policy.loraRank ${config.policy.loraRank} does not apply there`);
  // tau2 retail: prompts are fitted to the node's context (the retail policy alone exceeds small ones).
  const sampler = config.data.dataset === "tau2:retail" ? contextFittingPolicy(policy) : policy;
  const aux = await auxiliaryClients(ctx);
  if (resume.step > 0) await ctx.log("info", `resuming after committed step ${resume.step} from ${resume.statePath}`);
  else await ctx.log("info", `training ${total} steps: ${config.data.instancesPerStep} instances × ${config.data.rolloutsPerInstance} rollouts, ${config.rollout.paradigm} paradigm`);

  const attemptStart = Date.now();
  // Training states persist only at checkpoints: each step's state is kept until the next step
  // commits (resuming needs only the last committed one), then deleted on the node.
  let previousState: { path: string; checkpoint: boolean } | null = null;
  try {
    for (let step = resume.step + 1; step <= total; step++) {
      throwIfCancelled(signal);
      const startedAt = new Date();
      const result = await untilCancelled(
        runTrainingStep({ instances: source.forStep(step), config, policy: sampler, trainer: policy, ...aux, stepIndex: step, runId }),
        signal,
      );
      const state = await untilCancelled(policy.saveState(`${runId.slice(0, 8)}-step-${step}`), signal);
      const isCheckpoint = step % config.schedule.saveEvery === 0 || step === total;
      // Persistent sampler weights only at checkpoints; every step publishes ephemerally (the engine).
      const published = isCheckpoint ? await untilCancelled(policy.saveWeightsForSampler(`${runId.slice(0, 8)}-step-${step}`), signal) : null;
      const done = step - resume.step;
      const eta = ((Date.now() - attemptStart) / 1000 / done) * (total - step);
      const written = await persistStep(prisma, {
        runId,
        workerId: ctx.workerId,
        result,
        phase: "train",
        startedAt,
        statePath: state.path,
        checkpoint: published ? { nodeName: policyNode.name, statePath: state.path, samplerPath: published.path } : undefined,
        progress: { step, total, etaSeconds: eta },
      });
      await ctx.log("info", `step ${step}/${total}: ${stepSummary(result)}; ${written.trajectories} trajectories, ${written.turns} turns committed${isCheckpoint ? ", checkpoint saved" : ""}`);
      if (previousState && !previousState.checkpoint) {
        const stale = previousState.path;
        await policy.deleteState(stale).catch((e) => ctx.log("warn", `could not delete the training state ${stale} on node "${policyNode.name}": ${(e as Error).message}`));
      }
      previousState = { path: state.path, checkpoint: isCheckpoint };

      if (step % config.schedule.evalEvery === 0 || step === total) {
        throwIfCancelled(signal);
        const evalStart = new Date();
        const evalResult = await untilCancelled(
          runEvaluation({ instances: source.evalSet(), config, policy: sampler, ...aux, stepIndex: step, runId }),
          signal,
        );
        // tau2 retail: pass^k over the evaluation set's trials.
        if (config.data.dataset === "tau2:retail") Object.assign(evalResult.metrics, tau2EvalMetrics(evalResult.trajectories));
        await persistStep(prisma, { runId, workerId: ctx.workerId, result: evalResult, phase: "eval", startedAt: evalStart });
        await ctx.log("info", `eval at step ${step}: ${stepSummary(evalResult)}`);
      }
    }
  } finally {
    policy.close();
  }
}

/** Evaluation runs: one pass over the evaluation set with evaluation sampling; never updates weights. */
export async function evalExecutor(ctx: RunContext): Promise<void> {
  // tau2 retail evaluations have their own executor (live user simulator, real tools, pass^k).
  if (ctx.config.data.dataset === "tau2:retail") return tau2EvalExecutor(ctx);
  const { config, prisma, runId, signal } = ctx;
  await checkNodes(ctx, { reportProgress: false });
  const done = await prisma.step.findFirst({ where: { runId, kind: "eval", index: 1 }, select: { id: true } });
  if (done) {
    await ctx.log("info", "evaluation already committed");
    return;
  }
  const source = await instanceSource(prisma, config);
  const policyNode = await resolveNode(prisma, config.policy.node, "policy");
  const aux = await auxiliaryClients(ctx);
  const { chatPolicy } = await import("../nodes");
  const tinker = policyNode.kind === "openai" ? null : await trainingPolicyFor(policyNode, config.policy, undefined, (m) => void ctx.log("warn", m));
  const policy = tinker ?? chatPolicy(chatClientFor(policyNode, config.policy.model));
  signal.addEventListener("abort", () => tinker?.close(), { once: true });
  try {
    const instances = source.evalSet();
    await ctx.log("info", `evaluating ${instances.length} instances × ${config.trialsPerTask} trial(s)`);
    const startedAt = new Date();
    const result = await untilCancelled(
      runEvaluation({
        instances,
        config,
        policy,
        ...aux,
        stepIndex: 1,
        runId,
        onRolloutDone: throttledProgress(ctx),
      }),
      signal,
    );
    await persistStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", startedAt });
    await ctx.log("info", `evaluation: ${stepSummary(result)}`);
  } finally {
    tinker?.close();
  }
}
