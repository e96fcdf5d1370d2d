/**
 * Training runs: the step loop around the pure engine. Each step's rows commit in one transaction
 * together with the training state saved after the update, so a run killed at any point resumes from
 * its last committed step and that step's state, with nothing duplicated or lost.
 */
import { runEvaluation, runTrainingStep } from "../../engine/step";
import { throwIfCancelled, type RunContext } from "../context";
import { resolveNode, trainingPolicyFor } from "../nodes";
import { persistStep, resumePoint } from "../persist";
import { auxiliaryClients, samplingPolicy, stepSummary, untilCancelled, withEnvironment, type ClientOverrides } from "./common";
import { checkNodes } from "./node-check";

export async function trainExecutor(ctx: RunContext, overrides: ClientOverrides = {}): Promise<void> {
  const { config, prisma, runId, signal } = ctx;
  await checkNodes(ctx, { reportProgress: false });
  await withEnvironment(ctx, async (env) => {
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
    const sampler = samplingPolicy(env, { protocol: "tinker", policy });
    try {
      // The engine measures appended text with the node model's own tokenizer.
      const aux = { ...(await auxiliaryClients(ctx, env, overrides)), countTokens: (text: string) => policy.renderer.countTokens(text) };
      if (resume.step > 0) await ctx.log("info", `resuming after committed step ${resume.step} from ${resume.statePath}`);
      else await ctx.log("info", `training ${total} steps: ${config.data.instancesPerStep} instances × ${config.data.rolloutsPerInstance} rollouts, ${config.rollout.paradigm} paradigm`);

      const attemptStart = Date.now();
      // Training states persist only at checkpoints: each step's state is kept until the next step
      // commits (resuming needs only the last committed one), then deleted on the node.
      let previousState: { path: string; checkpoint: boolean } | null = null;
      for (let step = resume.step + 1; step <= total; step++) {
        throwIfCancelled(signal);
        const startedAt = new Date();
        const result = await untilCancelled(
          runTrainingStep({ instances: env.forStep(step), config, policy: sampler, trainer: policy, ...aux, stepIndex: step, runId }),
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
          const evalResult = await untilCancelled(runEvaluation({ instances: env.evalSet(), config, policy: sampler, ...aux, stepIndex: step, runId }), signal);
          Object.assign(evalResult.metrics, env.evaluationMetrics?.(evalResult));
          await persistStep(prisma, { runId, workerId: ctx.workerId, result: evalResult, phase: "eval", startedAt: evalStart });
          await ctx.log("info", `eval at step ${step}: ${stepSummary(evalResult)}`);
        }
      }
    } finally {
      policy.close();
    }
  });
}
