/**
 * Test-time comparisons: the arms (no rehearsal / parallel N / sequential N) as run configs, and a run's
 * arm read back from its config — so a comparison is a set of ordinary evaluation runs and a report finds
 * its arms from the runs alone. Pure; shared by the API (launch), the UI (preview) and reports.
 */
import type { RunConfig, RunConfigInput } from "../contracts/run-config";
import type { TestTimeArm } from "../contracts/test-time";

/** Which arm a run's (parsed) config is: a test-time evaluation's mode, else "none". */
export function armOf(config: RunConfig): { arm: TestTimeArm; attempts: number | null } {
  return config.testTime.enabled ? { arm: config.testTime.mode, attempts: config.testTime.attempts } : { arm: "none", attempts: null };
}

export function armLabel(arm: TestTimeArm, attempts: number | null): string {
  if (arm === "none") return "No test-time scaling";
  return `${arm === "parallel" ? "Parallel" : "Sequential"} rehearsal (N=${attempts ?? "?"})`;
}

/** A benchmark's column title in the paper's table. */
export function benchmarkLabel(dataset: string): string {
  if (dataset === "tau2:all") return "τ²-Bench (retail, telecom, airline)";
  if (dataset.startsWith("tau2:")) return `τ²-Bench ${dataset.slice(5)}`;
  if (dataset.startsWith("vitabench:")) {
    const [domain, lang] = dataset.slice(10).split("/");
    const name: Record<string, string> = { delivery: "delivery", instore: "in-store", ota: "OTA", cross: "cross-domain" };
    return `VitaBench ${name[domain!] ?? domain}${lang === "en" ? " (English)" : ""}`;
  }
  if (dataset.startsWith("bfcl:")) {
    const rest = dataset.slice(5);
    return /multi[_-]?turn/i.test(rest) ? "BFCL multi-turn" : `BFCL ${rest.replace(/_/g, " ")}`;
  }
  if (dataset.startsWith("builtin:")) {
    const name = dataset.slice(8);
    return `${name.charAt(0).toUpperCase()}${name.slice(1)} (built-in)`;
  }
  return dataset;
}

/** Column order: the paper's benchmarks first (τ², BFCL, VitaBench), then the built-in domains, then the rest. */
export function benchmarkOrder(dataset: string): number {
  // τ² in the paper's order: retail, telecom, airline (then all three together).
  if (dataset.startsWith("tau2:")) return ["tau2:retail", "tau2:telecom", "tau2:airline", "tau2:all"].indexOf(dataset) / 10 + 0.05;
  if (dataset.startsWith("bfcl:")) return 1;
  if (dataset.startsWith("vitabench:")) return 1.5;
  if (dataset.startsWith("builtin:")) return 2;
  return 3;
}

/** Datasets whose tasks carry no executable world (imported CM2): their evaluations keep the configured paradigm. */
const hasNoWorld = (dataset: string) => dataset.startsWith("dataset:");

export interface ComparisonBenchmark {
  dataset: string;
  split?: "train" | "test";
  /** Explicit task ids; empty: the environment's evaluation set for the config. */
  instanceIds?: string[];
}

/**
 * The config of one arm on one benchmark, from a base evaluation config. Every arm evaluates the same tasks
 * (same data section) with the same act sampling: the no-rehearsal arm is a plain evaluation whose act and
 * rehearse sampling are the test-time ones, and it runs where committed executions run (the task's real
 * world, unless the dataset has none).
 */
export function armConfig(base: RunConfig, arm: TestTimeArm, benchmark: ComparisonBenchmark): RunConfigInput {
  const paradigm = hasNoWorld(benchmark.dataset) ? base.rollout.paradigm : "environment";
  return {
    ...base,
    kind: "eval",
    data: {
      ...base.data,
      dataset: benchmark.dataset,
      ...(benchmark.split ? { split: benchmark.split } : {}),
      instanceIds: benchmark.instanceIds ?? base.data.instanceIds,
    },
    rollout: { ...base.rollout, paradigm, shadowExecution: paradigm === "rehearse" ? base.rollout.shadowExecution : false },
    sampling:
      arm === "none"
        ? { ...base.sampling, evalAct: base.testTime.sampling.act, evalRehearse: base.testTime.sampling.rehearse }
        : base.sampling,
    testTime: arm === "none" ? { ...base.testTime, enabled: false } : { ...base.testTime, enabled: true, mode: arm },
    // The fidelity probe adds rehearse calls to committed executions only in some arms: off for a fair comparison.
    fidelityProbe: false,
  };
}
