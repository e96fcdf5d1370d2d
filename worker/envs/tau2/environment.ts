/**
 * `tau2:retail` as a run environment, for training and evaluation runs.
 *
 * Every instance is a live-user task (live.ts): the user simulator named by rollout.userSimulator
 * answers every user turn, the real retail tools answer calls in the environment paradigm and in
 * shadow execution, and the reward replays the episode's calls on a fresh DB (end state × communicate).
 * Evaluation runs use the environment paradigm whatever the config says (the benchmark runs real
 * tools) and add `val/tau2/pass^k`; prompts are fitted to a small node's context.
 */
import { existsSync, readFileSync } from "node:fs";
import type { RunConfig } from "../../../contracts/run-config";
import { seededShuffle, stepSeed, takeCyclic } from "../../../lib/random";
import type { TaskInstance } from "../../engine/types";
import type { EnvironmentKind, RunEnvironment } from "../environment";
import type { Tau2RetailSource } from "./adapter";
import { contextFittingPolicy } from "./fit-context";
import { perTaskResults, tau2EvalMetrics, tau2LiveInstance, tau2TaskIdOf, TAU2_RETAIL_DATASET } from "./live";
import { loadRetailDb, type RetailDb } from "./model";
import { loadTasks, retailDataFiles, type Tau2Task } from "./tasks";

// Data (parsed once per process; every episode works on its own copy-on-write view of the DB).
let dbCache: { path: string; db: RetailDb } | undefined;
const sourceCache = new Map<string, Tau2RetailSource>();

/** The retail source for one split (throws a message naming ENVACE_DATA_DIR when files are missing). */
export function tau2Source(split: "train" | "test"): Tau2RetailSource {
  const files = retailDataFiles({ split });
  const key = `${files.dir}:${split}`;
  const cached = sourceCache.get(key);
  if (cached) return cached;
  if (dbCache?.path !== files.db) dbCache = { path: files.db, db: loadRetailDb(files.db) };
  const source: Tau2RetailSource = {
    db: dbCache.db,
    tasks: loadTasks(files.tasks),
    policy: readFileSync(files.policy, "utf8"),
    userGuidelines: readFileSync(files.userGuidelines, "utf8"),
  };
  sourceCache.set(key, source);
  return source;
}

/** Whether a split's task file exists (the shipped data may hold only the training split). */
export function tau2SplitAvailable(split: "train" | "test"): boolean {
  try {
    return existsSync(retailDataFiles({ split, required: [] }).tasks);
  } catch {
    return false;
  }
}

/** Tasks named by data.instanceIds ("<id>" or "tau2:retail/<id>"), else every task of the split. */
export function chooseTau2Tasks(source: Tau2RetailSource, instanceIds: string[], split: string): Tau2Task[] {
  if (instanceIds.length === 0) return source.tasks;
  const byId = new Map(source.tasks.map((t) => [t.id, t]));
  const missing = instanceIds.filter((id) => !byId.has(tau2TaskIdOf(id)));
  if (missing.length) throw new Error(`data.instanceIds: no task ${missing.slice(0, 5).map((m) => `"${m}"`).join(", ")}${missing.length > 5 ? ` (+${missing.length - 5} more)` : ""} in the tau2 retail ${split} split`);
  return instanceIds.map((id) => byId.get(tau2TaskIdOf(id))!);
}

/** Deterministic pick of `count` items for (seed, step): a seeded shuffle, cycled when count > items. */
const seededPick = <T>(items: T[], count: number, seed: number, step: number): T[] => takeCyclic(seededShuffle(items, stepSeed(seed, step)), count);

/**
 * The retail environment for one run: training instances per step (the same answer on every call, so
 * a resumed run replays identically) and the evaluation set. A training run's evaluation uses the test
 * split when its file exists, else a fixed sample of the training split (noted in the log).
 */
export function tau2RetailEnvironment(config: RunConfig, note: (message: string) => void = () => {}): RunEnvironment {
  const { split, instanceIds, instancesPerStep, seed } = config.data;
  const source = tau2Source(split);
  const chosen = chooseTau2Tasks(source, instanceIds, split).map((t) => tau2LiveInstance(source, t));
  let evalSet: TaskInstance[] | undefined;
  return {
    forStep: (step) =>
      instanceIds.length ? takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep) : seededPick(chosen, instancesPerStep, seed, step),
    evalSet() {
      if (evalSet) return evalSet;
      if (config.kind === "eval" || instanceIds.length) return (evalSet = chosen);
      if (tau2SplitAvailable("test")) {
        const test = tau2Source("test");
        return (evalSet = seededPick(test.tasks, Math.min(instancesPerStep, test.tasks.length), seed, 0).map((t) => tau2LiveInstance(test, t)));
      }
      note("tau2 retail: no test split file (tasks.test.json); evaluating on a fixed sample of the training split");
      return (evalSet = seededPick(chosen, Math.min(instancesPerStep, chosen.length), seed, 0));
    },
    userSimulator: { missing: "tau2:retail needs a user simulator: set rollout.userSimulator to a model on an OpenAI-compatible node" },
    // The retail policy alone exceeds a small node's context: prompts are fitted to it.
    samplingPolicy: (node, standard) => (node.protocol === "tinker" ? contextFittingPolicy(node.policy) : standard),
    evaluationParadigm: { paradigm: "environment", why: "tau2 evaluation runs the real tools" },
    evaluationMetrics: (result) => tau2EvalMetrics(result.trajectories),
    evaluationReport(result) {
      const headline = Object.entries(result.metrics)
        .filter(([k]) => k.startsWith("val/tau2/pass^"))
        .map(([k, v]) => `${k.slice("val/tau2/".length)} ${v.toFixed(3)}`)
        .join(", ");
      const lines = perTaskResults(result.trajectories)
        .slice(0, 200)
        .map((r) => `task ${r.taskId}: ${r.successes}/${r.trials} passed${r.errored ? `, ${r.errored} errored and left out` : ""} (${r.terminations.join(", ")})`);
      return { headline, lines };
    },
  };
}

export const tau2Environments: EnvironmentKind = {
  prefix: "tau2:",
  forms: TAU2_RETAIL_DATASET,
  async open({ config, note }) {
    if (config.data.dataset !== TAU2_RETAIL_DATASET) throw new Error(`data.dataset: unknown tau2 domain "${config.data.dataset}" (available: ${TAU2_RETAIL_DATASET})`);
    return tau2RetailEnvironment(config, note);
  },
};
