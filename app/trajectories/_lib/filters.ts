/**
 * Trajectory filters <-> URL search params. The list page and the trajectory page share them so that
 * J/K on a trajectory walks the same filtered list the user came from.
 */
export const outcomes = ["success", "failure", "error"] as const;
export const phases = ["train", "eval"] as const;
export const paradigms = ["rehearse", "simulator", "environment"] as const;
export const sorts = ["step", "reward_asc", "reward_desc"] as const;

export interface TrajectoryFilterValues {
  stepMin?: number;
  stepMax?: number;
  rewardMin?: number;
  rewardMax?: number;
  terminationReason?: string;
  outcome?: (typeof outcomes)[number];
  instanceId?: string;
  paradigm?: (typeof paradigms)[number];
  phase?: (typeof phases)[number];
  /** An evaluation suite's trajectories (schedule.evalSuites name). */
  suite?: string;
  sort?: (typeof sorts)[number];
}

/** URL parameter name of each filter. */
export const filterParams = {
  stepMin: "stepMin",
  stepMax: "stepMax",
  rewardMin: "rewardMin",
  rewardMax: "rewardMax",
  terminationReason: "reason",
  outcome: "outcome",
  instanceId: "instance",
  paradigm: "paradigm",
  phase: "phase",
  suite: "suite",
  sort: "sort",
} as const satisfies Record<keyof TrajectoryFilterValues, string>;

type Params = { get(name: string): string | null };

function int(v: string | null): number | undefined {
  if (v == null || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

function num(v: string | null): number | undefined {
  if (v == null || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function oneOf<T extends string>(v: string | null, allowed: readonly T[]): T | undefined {
  return v != null && (allowed as readonly string[]).includes(v) ? (v as T) : undefined;
}

function text(v: string | null): string | undefined {
  return v != null && v.trim() !== "" && v.length <= 300 ? v : undefined;
}

/** A suite name as the run config allows it (contracts/run-config.ts EVAL_SUITE_NAME). */
function suiteName(v: string | null): string | undefined {
  return v != null && /^[a-z0-9][a-z0-9_-]{0,39}$/.test(v) ? v : undefined;
}

/** Read filters from URL params, dropping anything malformed (a bad URL must not break the page). */
export function parseFilters(params: Params): TrajectoryFilterValues {
  const f: TrajectoryFilterValues = {
    stepMin: int(params.get(filterParams.stepMin)),
    stepMax: int(params.get(filterParams.stepMax)),
    rewardMin: num(params.get(filterParams.rewardMin)),
    rewardMax: num(params.get(filterParams.rewardMax)),
    terminationReason: text(params.get(filterParams.terminationReason)),
    outcome: oneOf(params.get(filterParams.outcome), outcomes),
    instanceId: text(params.get(filterParams.instanceId)),
    paradigm: oneOf(params.get(filterParams.paradigm), paradigms),
    phase: oneOf(params.get(filterParams.phase), phases),
    suite: suiteName(params.get(filterParams.suite)),
    sort: oneOf(params.get(filterParams.sort), sorts),
  };
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as TrajectoryFilterValues;
}

/** Write filters into (a copy of) URL params; other params (run, group, …) are kept. */
export function withFilters(base: string | URLSearchParams, filters: TrajectoryFilterValues): URLSearchParams {
  const next = new URLSearchParams(base);
  for (const [key, name] of Object.entries(filterParams) as [keyof TrajectoryFilterValues, string][]) {
    const v = filters[key];
    if (v === undefined || v === "") next.delete(name);
    else next.set(name, String(v));
  }
  return next;
}

/** Only the filter params, for carrying the list's filters into trajectory links. */
export function filterQuery(filters: TrajectoryFilterValues): string {
  return withFilters("", filters).toString();
}
