/**
 * `tau2:retail`, `tau2:airline`, `tau2:telecom` and `tau2:all` (the three at once) as run environments,
 * for training and evaluation runs.
 *
 * Every instance is a live-user task (harness/live.ts): the user simulator named by rollout.userSimulator
 * answers every user turn (telecom's acts on its phone with tool calls), the real domain tools answer calls
 * in the environment paradigm and in shadow execution, and the reward replays the episode's calls on a
 * fresh environment (v0.2.0's evaluator). Evaluation runs use the environment paradigm whatever the config
 * says (the benchmark runs real tools) and add pass^k, overall and per domain; prompts are fitted to a
 * small node's context. One run is one tau2 "process": its telecom environments share a runtime.
 */
import { existsSync } from "node:fs";
import type { RunConfig } from "../../../contracts/run-config";
import { seededShuffle, stepSeed, takeCyclic } from "../../../lib/random";
import { parseTau2InstanceId, tau2DataFiles, tau2DomainsOf, TAU2_DATASETS, type Tau2Domain, type Tau2Task } from "../../../lib/tau2/tasks";
import type { TaskInstance } from "../../engine/types";
import type { EnvironmentKind, RunEnvironment } from "../environment";
import { TelecomRuntime } from "./domains/telecom/state";
import { loadTau2Source } from "./harness/data";
import { contextFittingPolicy } from "./harness/fit-context";
import { tau2Instance } from "./harness/live";
import { domainTaskResults, tau2EvalMetrics } from "./harness/metrics";
import type { Tau2Source } from "./harness/source";

/** A domain's source for one split (throws a message naming ENVACE_DATA_DIR when files are missing). */
export function tau2Source(split: "train" | "test", domain: Tau2Domain = "retail", runtime?: TelecomRuntime): Tau2Source {
  return loadTau2Source(domain, split, runtime);
}

/** Whether a domain's split file exists (the shipped data holds only the training split). */
export function tau2SplitAvailable(split: "train" | "test", domain: Tau2Domain = "retail"): boolean {
  try {
    return existsSync(tau2DataFiles(domain, { split, required: [] }).tasks);
  } catch {
    return false;
  }
}

interface Chosen {
  source: Tau2Source;
  task: Tau2Task;
}

const listed = (ids: string[]) => `${ids.slice(0, 5).map((m) => `"${m}"`).join(", ")}${ids.length > 5 ? ` (+${ids.length - 5} more)` : ""}`;

/** Tasks named by data.instanceIds ("<id>" for one domain, "tau2:<domain>/<id>"), else every task of the split. */
export function chooseTau2Tasks(sources: Tau2Source[], instanceIds: string[], split: string, dataset: string): Chosen[] {
  if (instanceIds.length === 0) return sources.flatMap((source) => source.tasks.map((task) => ({ source, task })));
  const single = sources.length === 1 ? sources[0]!.domain : null;
  const refs = instanceIds.map((id) => ({ id, ref: parseTau2InstanceId(id, single) }));
  const bare = refs.filter((r) => !r.ref).map((r) => r.id);
  if (bare.length) throw new Error(`data.instanceIds: ${dataset} needs ids of the form tau2:<domain>/<task id> (${listed(bare)})`);
  const byDomain = new Map(sources.map((s) => [s.domain, { source: s, byId: new Map(s.tasks.map((t) => [t.id, t])) }]));
  const missing = refs.filter(({ ref }) => !byDomain.get(ref!.domain)?.byId.has(ref!.taskId));
  if (missing.length) {
    const domains = [...new Set(missing.map((m) => m.ref!.domain))];
    throw new Error(`data.instanceIds: no task ${listed(missing.map((m) => m.id))} in the tau2 ${domains.join("/")} ${split} split`);
  }
  return refs.map(({ ref }) => {
    const d = byDomain.get(ref!.domain)!;
    return { source: d.source, task: d.byId.get(ref!.taskId)! };
  });
}

/** Deterministic pick of `count` items for (seed, step): a seeded shuffle, cycled when count > items. */
const seededPick = <T>(items: T[], count: number, seed: number, step: number): T[] => takeCyclic(seededShuffle(items, stepSeed(seed, step)), count);

/** Live episodes start from the task's initial state; a message history to resume from is not replayed in them. */
function refuseHistories(chosen: Chosen[]): void {
  const withHistory = chosen.filter((c) => (c.task.initial_state?.message_history?.length ?? 0) > 0);
  if (withHistory.length) {
    throw new Error(`data.instanceIds: task ${listed(withHistory.map((c) => c.task.id))} starts from a message_history, which live episodes do not replay (tau2:oracle and tau2:calls do)`);
  }
}

/**
 * The tau2 environment for one run: training instances per step (the same answer on every call, so a
 * resumed run replays identically) and the evaluation set. A training run's evaluation uses the test split
 * when its files exist, else a fixed sample of the training split (noted in the log).
 */
export function tau2RunEnvironment(config: RunConfig, note: (message: string) => void = () => {}): RunEnvironment {
  const { dataset, split, instanceIds, instancesPerStep, seed } = config.data;
  const domains = tau2DomainsOf(dataset);
  if (!domains) throw new Error(`data.dataset: unknown tau2 domain "${dataset}" (available: ${TAU2_DATASETS.join(", ")})`);
  const runtime = new TelecomRuntime();
  const sources = domains.map((d) => tau2Source(split, d, runtime));
  const picked = chooseTau2Tasks(sources, instanceIds, split, dataset);
  refuseHistories(picked);
  const instance = (c: Chosen) => tau2Instance(c.source, c.task);
  const chosen = picked.map(instance);
  const multi = domains.length > 1;
  let evalSet: TaskInstance[] | undefined;
  return {
    forStep: (step) =>
      instanceIds.length ? takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep) : seededPick(chosen, instancesPerStep, seed, step),
    evalSet() {
      if (evalSet) return evalSet;
      if (config.kind === "eval" || instanceIds.length) return (evalSet = chosen);
      if (domains.every((d) => tau2SplitAvailable("test", d))) {
        const tests = domains.map((d) => tau2Source("test", d, runtime)).flatMap((s) => s.tasks.map((task) => ({ source: s, task })));
        refuseHistories(tests);
        return (evalSet = seededPick(tests, Math.min(instancesPerStep, tests.length), seed, 0).map(instance));
      }
      const without = domains.filter((d) => !tau2SplitAvailable("test", d));
      note(`tau2 ${without.join(", ")}: no test split file (tasks.test.json); evaluating on a fixed sample of the training split`);
      return (evalSet = seededPick(chosen, Math.min(instancesPerStep, chosen.length), seed, 0));
    },
    userSimulator: { missing: `${dataset} needs a user simulator: set rollout.userSimulator to a model on an OpenAI-compatible node` },
    // The policies alone exceed a small node's context: prompts are fitted to it.
    samplingPolicy: (node, standard) => (node.protocol === "tinker" ? contextFittingPolicy(node.policy) : standard),
    evaluationParadigm: { paradigm: "environment", why: "tau2 evaluation runs the real tools" },
    evaluationMetrics: (result) => tau2EvalMetrics(result.trajectories),
    evaluationReport(result) {
      const pass = (prefix: string) =>
        Object.entries(result.metrics)
          .filter(([k]) => k.startsWith(`${prefix}pass^`))
          .map(([k, v]) => `${k.slice(prefix.length)} ${v.toFixed(3)}`)
          .join(", ");
      const perDomain = multi ? domains.map((d) => `${d}: ${pass(`val/tau2/${d}/`) || "not scored"}`).join("; ") : "";
      const headline = [pass("val/tau2/"), perDomain].filter(Boolean).join(" — ");
      const lines = domainTaskResults(result.trajectories)
        .slice(0, 200)
        .map((r) => `task ${multi ? `${r.domain}/` : ""}${r.taskId}: ${r.successes}/${r.trials} passed${r.errored ? `, ${r.errored} errored and left out` : ""} (${r.terminations.join(", ")})`);
      return { headline, lines };
    },
  };
}

/** Retail's run environment (the name earlier callers use). */
export const tau2RetailEnvironment = tau2RunEnvironment;

export const tau2Environments: EnvironmentKind = {
  prefix: "tau2:",
  forms: "tau2:<retail|airline|telecom|all>",
  async open({ config, note }) {
    return tau2RunEnvironment(config, note);
  },
};
