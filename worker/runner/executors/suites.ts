/**
 * Evaluation suites of a training run (schedule.evalSuites, lib/eval-suites.ts): each suite's own
 * environment (worker/envs, opened once for the run from the suite's evaluation config), its own user
 * simulator and judge, and one evaluation of the current policy per evaluated step. A suite's
 * evaluation is committed on its own (persist.ts, kind `suite:<name>`), so a crash loses at most the
 * suite in flight and never repeats one that committed (resume.ts).
 */
import type { EvalSuite, RunConfig } from "../../../contracts/run-config";
import { limitSuiteInstances, suiteRunConfig, SUITE_SEED } from "../../../lib/eval-suites";
import { seededShuffle, stepSeed } from "../../../lib/random";
import type { PolicyClient } from "../../engine/io";
import { runEvaluation, type StepResult } from "../../engine/step";
import type { TaskInstance } from "../../engine/types";
import { openEnvironment, type ContextAwarePolicy, type RunEnvironment } from "../../envs";
import type { RunContext } from "../context";
import { whileDatabaseDown } from "../durable";
import { auxiliaryClients, samplingPolicy, untilCancelled, type AuxiliaryClients, type ClientOverrides } from "./common";

interface OpenSuite {
  suite: EvalSuite;
  /** The evaluation config, with the paradigm the environment fixes for evaluations. */
  config: RunConfig;
  env: RunEnvironment;
  aux: AuxiliaryClients;
  instances: TaskInstance[];
}

/** The suites of a training run, opened on first use and closed together. */
export class EvaluationSuites {
  private open = new Map<string, Promise<OpenSuite>>();
  private headlines = new Map<string, RunEnvironment["evaluationReport"]>();

  constructor(
    private ctx: RunContext,
    private overrides: ClientOverrides = {},
  ) {}

  private suiteNamed(name: string): EvalSuite {
    const suite = this.ctx.config.schedule.evalSuites.find((s) => s.name === name);
    if (!suite) throw new Error(`the run has no evaluation suite "${name}"`);
    return suite;
  }

  /** A suite's environment, clients and tasks (the same tasks at every step: a resumed run replays them). */
  private opened(name: string): Promise<OpenSuite> {
    let entry = this.open.get(name);
    if (!entry) {
      entry = this.openSuite(this.suiteNamed(name));
      // A suite that failed to open is tried again next time (e.g. after a database outage).
      entry.catch(() => this.open.delete(name));
      this.open.set(name, entry);
    }
    return entry;
  }

  private async openSuite(suite: EvalSuite): Promise<OpenSuite> {
    const { ctx } = this;
    const base = suiteRunConfig(ctx.config, suite);
    const tag = `suite ${suite.name}: `;
    const env = await whileDatabaseDown(
      () =>
        openEnvironment({
          config: base,
          prisma: ctx.prisma,
          signal: ctx.signal,
          note: (m) => void ctx.log("warn", tag + m).catch(() => {}),
          info: (m) => void ctx.log("info", tag + m).catch(() => {}),
        }),
      { signal: ctx.signal },
    );
    try {
      // A benchmark that must run its real tools fixes the paradigm of its evaluations (as for an evaluation run).
      const forced = env.evaluationParadigm;
      const config = forced ? { ...base, rollout: { ...base.rollout, paradigm: forced.paradigm, shadowExecution: false } } : base;
      const aux = await auxiliaryClients({ ...ctx, config }, env, this.overrides);
      const instances = limitSuiteInstances(env.evalSet(), suite.limit, (items) => seededShuffle(items, stepSeed(SUITE_SEED, 0)));
      if (instances.length === 0) throw new Error(`evaluation suite ${suite.name}: ${suite.dataset} has no tasks to evaluate`);
      await ctx.log(
        "info",
        `evaluation suite ${suite.name}: ${instances.length} task(s) of ${suite.dataset} (${suite.split} split) × ${suite.repeats} trial(s), ${config.rollout.paradigm} paradigm`,
      );
      this.headlines.set(suite.name, env.evaluationReport);
      return { suite, config, env, aux, instances };
    } catch (err) {
      await env.close?.().catch(() => {});
      throw err;
    }
  }

  /**
   * Evaluate the policy the training session holds on one suite at `step`: its sampling policy wrapped as
   * the suite's environment wraps it (e.g. fitted to a small context), `observe` watching for node restarts.
   */
  async evaluate(
    name: string,
    step: number,
    session: { policy: ContextAwarePolicy; countTokens: (text: string) => number },
    observe: (p: PolicyClient) => PolicyClient,
    onEpisode: (done: number, total: number) => void,
  ): Promise<StepResult> {
    const s = await untilCancelled(this.opened(name), this.ctx.signal);
    const sampled = observe(samplingPolicy(s.env, { protocol: "tinker", policy: session.policy }));
    const result = await untilCancelled(
      runEvaluation({
        instances: s.instances,
        config: s.config,
        policy: sampled,
        ...s.aux,
        countTokens: session.countTokens,
        stepIndex: step,
        // Distinct rollout and group ids per suite (trajectories of several suites share a step).
        runId: `${this.ctx.runId}/${name}`,
        onRolloutDone: onEpisode,
      }),
      this.ctx.signal,
    );
    Object.assign(result.metrics, s.env.evaluationMetrics?.(result));
    return result;
  }

  /** The suite's benchmark headline for the log (e.g. τ²'s pass^k), when its environment has one. */
  headline(name: string, result: StepResult): string | undefined {
    return this.headlines.get(name)?.(result)?.headline;
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    for (const entry of all) {
      const s = await entry.catch(() => null);
      await s?.env.close?.().catch((err: unknown) => this.ctx.log("warn", `closing the environment of suite ${s.suite.name} failed: ${err instanceof Error ? err.message : String(err)}`).catch(() => {}));
    }
  }
}
