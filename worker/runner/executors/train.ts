/**
 * Training runs: the step loop around the pure engine. A step has up to three kinds of part — the
 * training update, a checkpoint, its evaluations (the dataset's own and each evaluation suite's,
 * ./suites.ts; worker/runner/resume.ts) — each committed in one transaction
 * (the training update together with the state saved after it when the step saves one — every
 * `schedule.stateEvery` steps, at checkpoints and at the last step — and with the step's checkpoint when
 * it has one). A run killed at any point resumes at its first unfinished part, from the training state
 * that part starts from (replaying, replacing their commits, the steps after the last saved state), with
 * nothing duplicated or lost; it succeeds only when every part of every step is committed. A restart of
 * the policy node retries the part in flight from the last committed state (worker/runner/node-restarts.ts),
 * or, when the weights it starts from were never saved, resumes from the last saved state in the same
 * attempt; a database outage delays commits, never loses them.
 */
import { runEvaluation, runTrainingStep } from "../../engine/step";
import { throwIfCancelled, type RunContext } from "../context";
import { whileDatabaseDown } from "../durable";
import { resolveNode } from "../nodes";
import { commitStep, committedParts, persistCheckpoint } from "../persist";
import { describePlan, missingParts, planResume, savesState, suiteOfPart, type ResumePlan } from "../resume";
import { auxiliaryClients, stepSummary, untilCancelled, withEnvironment, type ClientOverrides } from "./common";
import { checkRunnable } from "./node-check";
import { partRunner, PolicySession } from "./policy-session";
import { PartProgress } from "./progress";
import { EvaluationSuites } from "./suites";
import { TrainingStates, UnsavedWeightsLost } from "./training-states";

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
    let plan = planResume(schedule, committed);
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
    const attemptStart = Date.now();
    let trained = 0;

    /** Does the plan's work, in order; throws UnsavedWeightsLost when a node restart took weights no state was saved of. */
    const work = async (plan: ResumePlan) => {
      for (const { step, parts, replay } of plan.work) {
        throwIfCancelled(signal);
        // A replayed step's commits replace what it committed before (../resume.ts, ../persist.ts).
        const replace = replay === true;
        if (parts.includes("train")) {
          // The training update, the state saved after it (when this step saves one), and (at checkpoints)
          // its sampler weights: one commit.
          const startedAt = new Date();
          const withCheckpoint = parts.includes("checkpoint");
          const withState = savesState(step, schedule);
          const { result, state, published, saveS } = await retrying(`step ${step} (training)`, step - 1, async (s, observe) => {
            const result = await untilCancelled(
              runTrainingStep({ instances: env.forStep(step), config, policy: observe(s.sampler), trainer: s.policy, ...s.aux, stepIndex: step, runId }),
              signal,
            );
            const saveStart = performance.now();
            const state = withState ? await untilCancelled(s.policy.saveState(states.name(step)), signal) : null;
            const saveS = (performance.now() - saveStart) / 1000;
            // Persistent sampler weights only at checkpoints; every step publishes ephemerally (the engine).
            const published = withCheckpoint ? await untilCancelled(s.policy.saveWeightsForSampler(states.name(step)), signal) : null;
            return { result, state, published, saveS };
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
              statePath: state?.path ?? null,
              checkpoint: published && state ? { nodeName: policyNode.name, statePath: state.path, samplerPath: published.path } : undefined,
              progress: { step, total, etaSeconds: eta },
              replace,
            },
            wait,
          );
          if (state) session.nowHolds(state.path);
          else session.nowHoldsUnsaved(step);
          const saved = state ? `, state saved (${saveS.toFixed(2)} s)` : "";
          await ctx.log(
            "info",
            `step ${step}/${total}: ${stepSummary(result)}; ${written.trajectories} trajectories, ${written.turns} turns committed${replace ? " (replayed, replacing the earlier commit)" : ""}${withCheckpoint ? ", checkpoint saved" : ""}${saved}`,
          );
          const stale = states.committed(step, state?.path ?? null, withCheckpoint);
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
          await commitStep(prisma, { runId, workerId: ctx.workerId, result: evalResult, phase: "eval", startedAt: evalStart, replace }, wait);
          await progress.done();
          await ctx.log("info", `eval at step ${step}: ${stepSummary(evalResult)}${replace ? " (replayed, replacing the earlier evaluation)" : ""}`);
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
          await commitStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", suite, startedAt: suiteStart, replace }, wait);
          await progress.done();
          await ctx.log("info", `suite ${suite} at step ${step}: ${[suites.headline(suite, result), stepSummary(result)].filter(Boolean).join("; ")}`);
        }
      }
    };

    try {
      if (plan.lastTrainStep > 0 || !plan.work[0]!.parts.includes("train")) await ctx.log("info", describePlan(plan));
      else await ctx.log("info", `training ${total} steps: ${config.data.instancesPerStep} instances × ${config.data.rolloutsPerInstance} rollouts, ${config.rollout.paradigm} paradigm`);

      // A node restart that took weights no state was saved of: resume from the last saved state, as a
      // new attempt would, as often as the node's restarts.stepRetries allows without a newer state saved.
      let lost = 0;
      let lostAt = -1;
      for (;;) {
        try {
          await work(plan);
          break;
        } catch (err) {
          if (!(err instanceof UnsavedWeightsLost)) throw err;
          lost = err.stateStep === lostAt ? lost + 1 : 1;
          lostAt = err.stateStep;
          if (lost > policyNode.settings.restarts.stepRetries)
            throw new Error(`node "${policyNode.name}": ${err.message}, ${lost} time(s) since the state of step ${err.stateStep} (node setting restarts.stepRetries ${policyNode.settings.restarts.stepRetries})`);
          states.forgetUnsaved();
          session.close();
          plan = planResume(schedule, await whileDatabaseDown(() => committedParts(prisma, runId), wait));
          await ctx.log("warn", `node "${policyNode.name}": ${err.message}; ${describePlan(plan)}`);
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
