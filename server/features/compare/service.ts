/**
 * Run comparison: run headers, config differences, and per-instance outcomes.
 *
 * Which trajectories count for a run ("its evaluated set"): those of its latest evaluation step
 * (phase "eval", highest step) or, when the run has no evaluation, of its last training step — and for an
 * evaluation run of several independent passes (`repeats: k`), every pass it committed (eval steps 1…k).
 * An instance is solved by the run if any of those trajectories has outcome "success" (the benchmark's
 * own verdict, lib/outcomes.ts). Trajectories with outcome "error" did not run: they are counted apart
 * (`errored`) and left out of n, the successes and the mean reward.
 */
import { runListSelect } from "../runs/service";
import { Prisma } from "@prisma/client";
import { prisma } from "../../../lib/db";
import { DomainError } from "../../lib/errors";
import { diffConfigs } from "../../../lib/compare/config-diff";
import { newcombeDifference, wilson, type Interval } from "../../../lib/stats/intervals";

export interface InstanceOutcome {
  runId: string;
  instanceId: string;
  dataSource: string;
  /** Trajectories of this instance in the evaluated set that ran (k, less the errored ones). */
  n: number;
  successes: number;
  /** Trajectories of this instance that errored (left out of n). */
  errored: number;
  /** Mean reward over the trajectories that ran (0 when none did). */
  meanReward: number;
}

/** Errored episodes of a run's evaluated set, per cause, with one cause in words. */
export interface ErroredCount {
  runId: string;
  kind: string;
  count: number;
  example: string | null;
}

export interface EvaluatedSet {
  runId: string;
  phase: "eval" | "train";
  step: number;
  /** An evaluation run of several passes (repeats): its first pass; the set is steps fromStep…step. Absent: `step` alone. */
  fromStep?: number;
}

/** The evaluated set of each run (runs without trajectories are left out). */
export async function evaluatedSets(runIds: string[]): Promise<EvaluatedSet[]> {
  if (runIds.length === 0) return [];
  const rows = await prisma.$queryRaw<{ runId: string; phase: string; step: number | null; passes: boolean | null }[]>`
    select r.id as "runId", p.phase, p.step,
           (select x.kind = 'eval' and jsonb_typeof(x.config->'repeats') = 'number' and (x.config->>'repeats')::numeric > 1 from run x where x.id = r.id) as passes
    from unnest(${runIds}::text[]) as r(id)
    cross join lateral (
      select t.phase, t.step from trajectory t
      where t."runId" = r.id
      order by (t.phase = 'eval') desc, t.step desc
      limit 1
    ) p`;
  return rows
    .filter((r) => r.step != null)
    .map((r) => ({ runId: r.runId, phase: r.phase as "eval" | "train", step: r.step!, ...(r.passes && r.phase === "eval" && r.step! > 1 ? { fromStep: 1 } : {}) }));
}

/** Per (run, instance) counts over each run's evaluated set (or over `only`: e.g. one pass of a run), and its errored episodes per cause. */
export async function instanceOutcomes(runIds: string[], only?: EvaluatedSet[]): Promise<{ sets: EvaluatedSet[]; outcomes: InstanceOutcome[]; errored: ErroredCount[] }> {
  const sets = only ?? (await evaluatedSets(runIds));
  if (sets.length === 0) return { sets, outcomes: [], errored: [] };
  const conditions = Prisma.join(
    sets.map((s) => Prisma.sql`(t."runId" = ${s.runId} and t.phase = ${s.phase} and t.step between ${s.fromStep ?? s.step} and ${s.step})`),
    " or ",
  );
  const [outcomes, errored] = await Promise.all([
    prisma.$queryRaw<InstanceOutcome[]>`
      select t."runId", t."instanceId",
             coalesce(min(t.summary->>'dataSource'), 'unknown') as "dataSource",
             (count(*) filter (where t.outcome <> 'error'))::int as n,
             (count(*) filter (where t.outcome = 'success'))::int as successes,
             (count(*) filter (where t.outcome = 'error'))::int as errored,
             coalesce(avg(t.reward) filter (where t.outcome <> 'error'), 0)::float8 as "meanReward"
      from trajectory t
      where ${conditions}
      group by t."runId", t."instanceId"
      order by t."instanceId", t."runId"`,
    prisma.$queryRaw<ErroredCount[]>`
      select t."runId", coalesce(t."errorKind", 'unknown') as kind, count(*)::int as count, min(t."errorCause") as example
      from trajectory t
      where (${conditions}) and t.outcome = 'error'
      group by t."runId", coalesce(t."errorKind", 'unknown')
      order by t."runId", count(*) desc`,
  ]);
  return { sets, outcomes, errored };
}

export interface OutcomeRow {
  instanceId: string;
  dataSource: string;
  /** One cell per requested run, in input order; null where the run did not evaluate the instance. n = episodes that ran (errored ones apart). */
  cells: ({ solved: boolean; successes: number; n: number; errored: number; meanReward: number } | null)[];
  /** True when the runs that evaluated the instance disagree on whether it is solved. */
  differs: boolean;
}

/** Pivot per-run outcomes into one row per instance; disagreements first. Pure. */
export function outcomeTable(runIds: string[], outcomes: InstanceOutcome[]): OutcomeRow[] {
  const byInstance = new Map<string, OutcomeRow>();
  for (const o of outcomes) {
    const col = runIds.indexOf(o.runId);
    if (col < 0) continue;
    let row = byInstance.get(o.instanceId);
    if (!row) {
      row = { instanceId: o.instanceId, dataSource: o.dataSource, cells: runIds.map(() => null), differs: false };
      byInstance.set(o.instanceId, row);
    }
    row.cells[col] = { solved: o.successes > 0, successes: o.successes, n: o.n, errored: o.errored, meanReward: o.meanReward };
  }
  const rows = [...byInstance.values()];
  for (const row of rows) {
    // An instance whose every episode errored says nothing: it neither agrees nor disagrees.
    const solved = row.cells.filter((c) => c != null && c.n > 0).map((c) => c!.solved);
    row.differs = solved.includes(true) && solved.includes(false);
  }
  return rows.sort((a, b) => Number(b.differs) - Number(a.differs) || a.instanceId.localeCompare(b.instanceId));
}

// The runs-table columns plus the config (for the config diff).
const compareRunSelect = { ...runListSelect, config: true } satisfies Prisma.RunSelect;

export async function compareRuns(runIds: string[]) {
  const ids = [...new Set(runIds)];
  const found = await prisma.run.findMany({ where: { id: { in: ids } }, select: compareRunSelect });
  const missing = ids.filter((id) => !found.some((r) => r.id === id));
  if (missing.length) throw new DomainError("NOT_FOUND", `run(s) not found: ${missing.join(", ")}`);
  const runs = ids.map((id) => found.find((r) => r.id === id)!);
  const { sets, outcomes, errored } = await instanceOutcomes(ids);
  const rows = outcomeTable(ids, outcomes);
  const MAX_ROWS = 5000;
  return {
    runs: runs.map(({ config: _config, ...r }) => ({ ...r, evaluated: sets.find((s) => s.runId === r.id) ?? null })),
    configDiff: diffConfigs(runs.map((r) => r.config)),
    outcomes: rows.slice(0, MAX_ROWS),
    outcomesTruncated: rows.length > MAX_ROWS,
    /**
     * Per run: instances solved (any success) of those evaluated (at least one episode that ran), with the
     * solved share's 95 % Wilson interval; solved while another run fails; episodes that errored; and Δ =
     * its solved share minus the first run's, with the 95 % Newcombe interval (lib/stats/intervals.ts).
     */
    solvedCounts: solvedCounts(rows, ids.length),
    errored: erroredByRun(ids, errored),
  };
}

export interface SolvedCount {
  solved: number;
  evaluated: number;
  uniquelySolved: number;
  /** Episodes of the evaluated set that errored (left out). */
  errored: number;
  /** Solved share (0…1) and its 95 % Wilson interval; null without evaluated instances. */
  rate: number | null;
  interval: Interval | null;
  /** Solved share minus the first run's, with its 95 % Newcombe interval; null for the first run or without data. */
  delta: (Interval & { estimate: number }) | null;
}

/** The per-run summary row of a comparison. Pure. */
export function solvedCounts(rows: OutcomeRow[], runs: number): SolvedCount[] {
  const base = Array.from({ length: runs }, (_, col) => {
    const evaluated = rows.filter((r) => (r.cells[col]?.n ?? 0) > 0).length;
    const solved = rows.filter((r) => r.cells[col]?.solved).length;
    return {
      solved,
      evaluated,
      uniquelySolved: rows.filter((r) => r.cells[col]?.solved && r.cells.some((c, j) => j !== col && c != null && c.n > 0 && !c.solved)).length,
      errored: rows.reduce((s, r) => s + (r.cells[col]?.errored ?? 0), 0),
      rate: evaluated > 0 ? solved / evaluated : null,
      interval: evaluated > 0 ? wilson(solved / evaluated, evaluated) : null,
    };
  });
  const first = base[0];
  return base.map((b, col) => ({
    ...b,
    delta: col > 0 && first && first.rate != null && b.rate != null ? newcombeDifference(b.rate, b.evaluated, first.rate, first.evaluated) : null,
  }));
}

/** Errored episodes per run (in input order), by cause. */
function erroredByRun(ids: string[], errored: ErroredCount[]) {
  return ids.map((runId) => {
    const mine = errored.filter((e) => e.runId === runId);
    return { runId, total: mine.reduce((s, e) => s + e.count, 0), byKind: mine.map(({ kind, count, example }) => ({ kind, count, example })) };
  });
}
