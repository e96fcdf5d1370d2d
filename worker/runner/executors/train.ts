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
import type { RunConfig } from "../../../contracts/run-config";
import type { PolicyClient } from "../../engine/io";
import { runEvaluation, runTrainingStep } from "../../engine/step";
import type { RunEnvironment } from "../../envs";
import type { TinkerPolicy } from "../../clients/tinker-policy";
import { throwIfCancelled, type RunContext } from "../context";
import { whileDatabaseDown } from "../durable";
import { withNodeRestarts } from "../node-restarts";
import { resolveNode, trainingPolicyFor, type ResolvedNode } from "../nodes";
import { commitStep, committedParts, persistCheckpoint } from "../persist";
import { describePlan, missingParts, planResume, suiteOfPart } from "../resume";
import { auxiliaryClients, samplingPolicy, stepSummary, untilCancelled, withEnvironment, type AuxiliaryClients, type ClientOverrides } from "./common";
import { checkRunnable } from "./node-check";
import { EvaluationSuites } from "./suites";

/**
 * The training session on the policy node, opened from a committed training state (null: the base
 * model). After a node restart it is dropped and opened again from the state the retried part needs.
 */
class PolicySession {
  private current: { policy: TinkerPolicy; sampler: PolicyClient; aux: AuxiliaryClients & { countTokens: (text: string) => number } } | null = null;
  /** The training state the open session holds (undefined: none open). */
  private held: string | null | undefined = undefined;

  private noted = false;

  constructor(
    private node: ResolvedNode,
    private config: RunConfig,
    private env: RunEnvironment,
    private aux: AuxiliaryClients,
    private ctx: RunContext,
  ) {
    ctx.signal.addEventListener("abort", () => this.close(), { once: true });
  }

  /** The session holding `state`, opened (or re-opened) when the one open holds another. */
  async holding(state: string | null) {
    if (this.current && this.held === state) return this.current;
    this.close();
    const policy = await trainingPolicyFor(this.node, this.config.policy, state ?? undefined, (m) => void this.ctx.log("warn", m));
    if (!this.noted && policy.profile === "envace-embedded" && this.config.policy.loraRank !== 32) {
      this.noted = true;
      await this.ctx.log("info", `the embedded node trains all weights of ${this.config.policy.model}; policy.loraRank ${this.config.policy.loraRank} does not apply there`);
    }
    // The engine measures appended text with the node model's own tokenizer.
    this.current = { policy, sampler: samplingPolicy(this.env, { protocol: "tinker", policy }), aux: { ...this.aux, countTokens: (text) => policy.renderer.countTokens(text) } };
    this.held = state;
    return this.current;
  }

  /** Delete a training state on the node (through the open session; none open: nothing to do). */
  async deleteState(path: string): Promise<void> {
    await this.current?.policy.deleteState(path);
  }

  /** The open session now holds `state` (it was just saved from it). */
  nowHolds(state: string) {
    if (this.current) this.held = state;
  }

  close() {
    this.current?.policy.close();
    this.current = null;
    this.held = undefined;
  }
}

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
    // The status detail while an evaluation runs counts its episodes, unless a node restart is being waited out.
    let nodeDetail: string | null = null;
    const report: RunContext = { ...ctx, detail: (text) => ((nodeDetail = text), ctx.detail(text)) };
    const episodes = (what: string) => {
      let shown = 0;
      return (done: number, total: number) => {
        if (nodeDetail !== null || (done < total && done - shown < Math.max(1, Math.floor(total / 20)))) return;
        shown = done;
        void ctx.detail(`${what}: ${done} of ${total} episodes`).catch(() => {});
      };
    };
    // The training state after each step: committed ones now, then each one this attempt saves.
    const stateAfter = new Map<number, string | null>([[0, null]]);
    for (const t of committed.train) if (t.statePath) stateAfter.set(t.step, t.statePath);
    const stateName = (step: number) => `${runId.slice(0, 8)}-step-${step}`;
    const fromText = (step: number) => (step === 0 ? "the base model" : `the committed state of step ${step}`);
    const retrying = <T>(what: string, fromStep: number, attempt: (s: Awaited<ReturnType<PolicySession["holding"]>>, observe: (p: PolicyClient) => PolicyClient) => Promise<T>) =>
      withNodeRestarts({
        node: { name: policyNode.name, kind: policyNode.kind, baseUrl: policyNode.baseUrl, apiKey: policyNode.apiKey },
        settings: policyNode.settings.restarts,
        report,
        signal,
        what,
        from: fromText(fromStep),
        reset: () => session.close(),
        attempt: async (watch) => {
          const state = stateAfter.get(fromStep);
          if (state === undefined) throw new Error(`no training state known for step ${fromStep}`);
          const s = await untilCancelled(session.holding(state), signal);
          return attempt(s, (p) => watch.observe(p));
        },
      });

    try {
      if (plan.lastTrainStep > 0 || !plan.work[0]!.parts.includes("train")) await ctx.log("info", describePlan(plan));
      else await ctx.log("info", `training ${total} steps: ${config.data.instancesPerStep} instances × ${config.data.rolloutsPerInstance} rollouts, ${config.rollout.paradigm} paradigm`);

      const attemptStart = Date.now();
      let trained = 0;
      // Training states persist only at checkpoints: each step's state is kept until the next step
      // commits (resuming, and retrying after a node restart, need only the last committed one), then
      // deleted on the node.
      let previousState: { path: string; checkpoint: boolean } | null = null;
      for (const { step, parts } of plan.work) {
        throwIfCancelled(signal);
        if (parts.includes("train")) {
          const startedAt = new Date();
          const withCheckpoint = parts.includes("checkpoint");
          const { result, state, published } = await retrying(`step ${step} (training)`, step - 1, async (s, observe) => {
            const result = await untilCancelled(
              runTrainingStep({ instances: env.forStep(step), config, policy: observe(s.sampler), trainer: s.policy, ...s.aux, stepIndex: step, runId }),
              signal,
            );
            const state = await untilCancelled(s.policy.saveState(stateName(step)), signal);
            // Persistent sampler weights only at checkpoints; every step publishes ephemerally (the engine).
            const published = withCheckpoint ? await untilCancelled(s.policy.saveWeightsForSampler(stateName(step)), signal) : null;
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
          stateAfter.set(step, state.path);
          session.nowHolds(state.path);
          await ctx.log("info", `step ${step}/${total}: ${stepSummary(result)}; ${written.trajectories} trajectories, ${written.turns} turns committed${withCheckpoint ? ", checkpoint saved" : ""}`);
          if (previousState && !previousState.checkpoint) {
            const stale = previousState.path;
            await session
              .deleteState(stale)
              .catch((e) => ctx.log("warn", `could not delete the training state ${stale} on node "${policyNode.name}": ${(e as Error).message}`));
          }
          previousState = { path: state.path, checkpoint: withCheckpoint };
        } else if (parts.includes("checkpoint")) {
          // A committed training step without its checkpoint: publish its state for sampling and record it.
          const published = await retrying(`the checkpoint of step ${step}`, step, (s) => untilCancelled(s.policy.saveWeightsForSampler(stateName(step)), signal));
          const statePath = stateAfter.get(step)!;
          await whileDatabaseDown(() => persistCheckpoint(prisma, { runId, workerId: ctx.workerId, step, nodeName: policyNode.name, statePath, samplerPath: published.path }), wait);
          await ctx.log("info", `step ${step}/${total}: checkpoint saved`);
        }

        if (parts.includes("eval")) {
          throwIfCancelled(signal);
          const evalStart = new Date();
          const onEpisode = episodes(`evaluation at step ${step}`);
          const evalResult = await retrying(`the evaluation of step ${step}`, step, (s, observe) =>
            untilCancelled(runEvaluation({ instances: env.evalSet(), config, policy: observe(s.sampler), ...s.aux, stepIndex: step, runId, onRolloutDone: onEpisode }), signal),
          );
          Object.assign(evalResult.metrics, env.evaluationMetrics?.(evalResult));
          await commitStep(prisma, { runId, workerId: ctx.workerId, result: evalResult, phase: "eval", startedAt: evalStart }, wait);
          if (nodeDetail === null) await ctx.detail(null);
          await ctx.log("info", `eval at step ${step}: ${stepSummary(evalResult)}`);
        }

        // Each evaluation suite on its own: a crash loses only the suite in flight (resume.ts).
        for (const part of parts) {
          const suite = suiteOfPart(part);
          if (suite === null) continue;
          throwIfCancelled(signal);
          const suiteStart = new Date();
          const onEpisode = episodes(`evaluation suite ${suite} at step ${step}`);
          const result = await retrying(`evaluation suite ${suite} at step ${step}`, step, (s, observe) =>
            suites.evaluate(suite, step, { policy: s.policy, countTokens: s.aux.countTokens }, observe, onEpisode),
          );
          await commitStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", suite, startedAt: suiteStart }, wait);
          if (nodeDetail === null) await ctx.detail(null);
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
