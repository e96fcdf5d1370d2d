/**
 * Training runs: the step loop around the pure engine. A step has up to three kinds of part — the
 * training update, a checkpoint, its evaluations (the dataset's own and each evaluation suite's,
 * ./suites.ts; worker/runner/resume.ts) — each committed in one transaction
 * (the training update together with the state saved after it, and with the step's checkpoint when it
 * has one). A run killed at any point resumes at its first unfinished part, from the training state
 * that part starts from, with nothing duplicated or lost; it succeeds only when every part of every
 * step is committed. A restart of the policy node retries the part in flight from the last committed
 * state (worker/runner/node-restarts.ts); a database outage delays commits, never loses them.
 */
import { runEvaluation, runTrainingStep } from "../../engine/step";
import { throwIfCancelled, type RunContext } from "../context";
import { whileDatabaseDown } from "../durable";
import { resolveNode } from "../nodes";
import { commitStep, committedParts, persistCheckpoint } from "../persist";
import { describePlan, missingParts, planResume, suiteOfPart } from "../resume";
import { auxiliaryClients, stepSummary, untilCancelled, withEnvironment, type ClientOverrides } from "./common";
import { checkRunnable } from "./node-check";
import { partRunner, PolicySession } from "./policy-session";
import { PartProgress } from "./progress";
import { EvaluationSuites } from "./suites";
import { TrainingStates } from "./training-states";

/**
 * The step loop. Resume planning is ../resume.ts, the session on the policy node and the retry of a part
 * after a node restart ./policy-session.ts, the training states kept and deleted ./training-states.ts,
 * the status detail ./progress.ts, the evaluation suites ./suites.ts, the commits ../persist.ts.
 */
export async function trainExecutor(ctx: RunContext, overrides: ClientOverrides = {}): Promise<void> {
  const { config, prisma, runId, signal } = ctx;
  const wait = { signal };
  await checkRunnable(ctx);
  await withEnvironment(ctx, async (env) => {
    const { schedule } = config;
    const total = schedule.steps;
    const committed = await whileDatabaseDown(() => committedParts(prisma, runId), wait);
    const plan = planResume(schedule, committed);
    if (plan.work.length === 0) {
      await ctx.log("info", `every part of all ${total} steps is already committed`);
      return;
    }

    const policyNode = await whileDatabaseDown(() => resolveNode(prisma, config.policy.node, "policy"), wait);
    const aux = await auxiliaryClients(ctx, env, overrides);
    const session = new PolicySession(policyNode, config, env, aux, ctx);
    const suites = new EvaluationSuites(ctx, overrides);
    const progress = new PartProgress(ctx);
    const states = new TrainingStates(runId, committed);
    const retrying = partRunner({ node: policyNode, session, states, report: progress.report, signal });

    try {
      if (plan.lastTrainStep > 0 || !plan.work[0]!.parts.includes("train")) await ctx.log("info", describePlan(plan));
      else await ctx.log("info", `training ${total} steps: ${config.data.instancesPerStep} instances × ${config.data.rolloutsPerInstance} rollouts, ${config.rollout.paradigm} paradigm`);

      const attemptStart = Date.now();
      let trained = 0;
      for (const { step, parts } of plan.work) {
        throwIfCancelled(signal);
        if (parts.includes("train")) {
          // The training update, the state saved after it, and (at checkpoints) its sampler weights: one commit.
          const startedAt = new Date();
          const withCheckpoint = parts.includes("checkpoint");
          const { result, state, published } = await retrying(`step ${step} (training)`, step - 1, async (s, observe) => {
            const result = await untilCancelled(
              runTrainingStep({ instances: env.forStep(step), config, policy: observe(s.sampler), trainer: s.policy, ...s.aux, stepIndex: step, runId }),
              signal,
            );
            const state = await untilCancelled(s.policy.saveState(states.name(step)), signal);
            // Persistent sampler weights only at checkpoints; every step publishes ephemerally (the engine).
            const published = withCheckpoint ? await untilCancelled(s.policy.saveWeightsForSampler(states.name(step)), signal) : null;
            return { result, state, published };
          });
          trained++;
          const eta = ((Date.now() - attemptStart) / 1000 / trained) * (total - step);
          const written = await commitStep(
            prisma,
            {
              runId,
              workerId: ctx.workerId,
              result,
              phase: "train",
              startedAt,
              statePath: state.path,
              checkpoint: published ? { nodeName: policyNode.name, statePath: state.path, samplerPath: published.path } : undefined,
              progress: { step, total, etaSeconds: eta },
            },
            wait,
          );
          session.nowHolds(state.path);
          await ctx.log("info", `step ${step}/${total}: ${stepSummary(result)}; ${written.trajectories} trajectories, ${written.turns} turns committed${withCheckpoint ? ", checkpoint saved" : ""}`);
          const stale = states.committed(step, state.path, withCheckpoint);
          if (stale)
            await session.deleteState(stale).catch((e) => ctx.log("warn", `could not delete the training state ${stale} on node "${policyNode.name}": ${(e as Error).message}`));
        } else if (parts.includes("checkpoint")) {
          // A committed training step without its checkpoint: publish its state for sampling and record it.
          const published = await retrying(`the checkpoint of step ${step}`, step, (s) => untilCancelled(s.policy.saveWeightsForSampler(states.name(step)), signal));
          const statePath = states.after(step)!;
          await whileDatabaseDown(() => persistCheckpoint(prisma, { runId, workerId: ctx.workerId, step, nodeName: policyNode.name, statePath, samplerPath: published.path }), wait);
          await ctx.log("info", `step ${step}/${total}: checkpoint saved`);
        }

        if (parts.includes("eval")) {
          throwIfCancelled(signal);
          const evalStart = new Date();
          const onEpisode = progress.episodes(`evaluation at step ${step}`);
          const evalResult = await retrying(`the evaluation of step ${step}`, step, (s, observe) =>
            untilCancelled(runEvaluation({ instances: env.evalSet(), config, policy: observe(s.sampler), ...s.aux, stepIndex: step, runId, onRolloutDone: onEpisode }), signal),
          );
          Object.assign(evalResult.metrics, env.evaluationMetrics?.(evalResult));
          await commitStep(prisma, { runId, workerId: ctx.workerId, result: evalResult, phase: "eval", startedAt: evalStart }, wait);
          await progress.done();
          await ctx.log("info", `eval at step ${step}: ${stepSummary(evalResult)}`);
        }

        // Each evaluation suite on its own: a crash loses only the suite in flight (resume.ts).
        for (const part of parts) {
          const suite = suiteOfPart(part);
          if (suite === null) continue;
          throwIfCancelled(signal);
          const suiteStart = new Date();
          const onEpisode = progress.episodes(`evaluation suite ${suite} at step ${step}`);
          const result = await retrying(`evaluation suite ${suite} at step ${step}`, step, (s, observe) =>
            suites.evaluate(suite, step, { policy: s.policy, countTokens: s.aux.countTokens }, observe, onEpisode),
          );
          await commitStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", suite, startedAt: suiteStart }, wait);
          await progress.done();
          await ctx.log("info", `suite ${suite} at step ${step}: ${[suites.headline(suite, result), stepSummary(result)].filter(Boolean).join("; ")}`);
        }
      }
    } finally {
      session.close();
      await suites.close();
    }

    // Succeeded only when every part of every step exists.
    const missing = missingParts(schedule, await whileDatabaseDown(() => committedParts(prisma, runId), wait));
    if (missing.length > 0) throw new Error(`the run is incomplete: ${missing.join(", ")} not committed`);
  });
}
