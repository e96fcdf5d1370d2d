/**
 * Evaluation suites of a training run (schedule.evalSuites): what the worker, the launch check and the
 * readers agree on. A suite is evaluated as if it were an evaluation run of its own benchmark
 * (`suiteRunConfig`), committed as a step of kind `suite:<name>` whose trajectories have phase
 * `suite:<name>` and whose metrics are charted as `val/<name>/…`. Pure.
 */
import type { EvalSuite, Paradigm, RunConfig } from "../contracts/run-config";

export const SUITE_PREFIX = "suite:";

/** Step kind and trajectory phase of a suite's evaluation. */
export function suiteKind(name: string): string {
  return `${SUITE_PREFIX}${name}`;
}

/** The suite a step kind or trajectory phase belongs to (null: not a suite's). */
export function suiteOfKind(kind: string): string | null {
  return kind.startsWith(SUITE_PREFIX) ? kind.slice(SUITE_PREFIX.length) : null;
}

/** Where a suite's metric is charted: `val/<suite>/<key>` (an evaluation key's own `val/` is dropped). */
export function suiteMetricKey(name: string, key: string): string {
  return `val/${name}/${key.startsWith("val/") ? key.slice(4) : key}`;
}

/** The prefix of a suite's metric keys. */
export function suiteMetricPrefix(name: string): string {
  return `val/${name}/`;
}

/**
 * Seed of the draw of a suite's tasks (its `limit`): the same for every run, so the runs of a study —
 * whatever their own data.seed — are evaluated on the same tasks.
 */
export const SUITE_SEED = 0;

/** A suite's paradigm: as set, else the real environment — except an imported dataset, which has none. */
export function suiteParadigm(suite: Pick<EvalSuite, "dataset" | "paradigm">): Paradigm {
  if (suite.paradigm) return suite.paradigm;
  return suite.dataset.startsWith("dataset:") ? "rehearse" : "environment";
}

/**
 * The evaluation config a suite runs with: the training run's policy, evaluation sampling and rollout
 * limits, with the suite's benchmark, tasks, trials, paradigm, user simulator and judge — an
 * evaluation run's config (kind "eval"), so every environment picks the suite's split as it would for
 * an evaluation run. No shadow execution, fidelity probe or test-time rehearsal.
 */
export function suiteRunConfig(config: RunConfig, suite: EvalSuite): RunConfig {
  const userSimulator = suite.userSimulator ?? config.rollout.userSimulator;
  const judge = suite.judge ?? config.reward.judge;
  return {
    ...config,
    kind: "eval",
    data: {
      ...config.data,
      dataset: suite.dataset,
      split: suite.split,
      instanceIds: suite.instanceIds,
      poolSize: undefined,
      instancesPerStep: suite.limit ?? Math.max(1, suite.instanceIds.length),
      rolloutsPerInstance: suite.repeats,
      seed: SUITE_SEED,
    },
    rollout: { ...config.rollout, paradigm: suiteParadigm(suite), shadowExecution: false, ...(userSimulator ? { userSimulator } : { userSimulator: undefined }) },
    reward: { ...config.reward, rehearsalGrounding: 0, ...(judge ? { judge } : { judge: undefined }) },
    schedule: { ...config.schedule, evalOwnSplit: true, evalSuites: [] },
    trialsPerTask: suite.repeats,
    fidelityProbe: false,
    testTime: { ...config.testTime, enabled: false },
  };
}

/** Where a field of a suite's evaluation config comes from in the training run's config, for launch problems. */
const SUITE_FIELDS: [from: string, to: string][] = [
  ["data.dataset", "dataset"],
  ["data.split", "split"],
  ["data.instanceIds", "instanceIds"],
  ["data.instancesPerStep", "limit"],
  ["rollout.paradigm", "paradigm"],
  ["rollout.shadowExecution", "paradigm"],
  ["trialsPerTask", "repeats"],
];

/**
 * The training run's config field a problem of suite `index`'s evaluation config concerns:
 * `data.instanceIds` → `schedule.evalSuites.<i>.instanceIds`; the user simulator and the judge → the
 * suite's own when it names one, else the run's (`rollout.userSimulator.node`); the policy's context →
 * the suite's dataset (its prompts are what does not fit); anything else as it is.
 */
export function suiteProblemPath(index: number, suite: EvalSuite, path: string): string {
  const at = (field: string) => `schedule.evalSuites.${index}.${field}`;
  for (const [from, to] of SUITE_FIELDS) if (path === from || path.startsWith(`${from}.`)) return at(to + path.slice(from.length));
  if (path.startsWith("rollout.userSimulator")) return suite.userSimulator ? at(`userSimulator${path.slice("rollout.userSimulator".length)}`) : path;
  if (path.startsWith("reward.judge")) return suite.judge ? at(`judge${path.slice("reward.judge".length)}`) : path;
  if (path.startsWith("policy.")) return at("dataset");
  return path;
}

/** Drop repeated instances (a cyclic draw larger than its split), then keep a fixed seeded sample of `limit`. */
export function limitSuiteInstances<T extends { id: string }>(instances: T[], limit: number | undefined, shuffle: (items: T[]) => T[]): T[] {
  const unique = [...new Map(instances.map((i) => [i.id, i])).values()];
  if (limit === undefined || unique.length <= limit) return unique;
  return shuffle(unique).slice(0, limit);
}
