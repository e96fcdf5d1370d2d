/**
 * Run comparison: run headers, config differences, and per-instance outcomes.
 *
 * Which trajectories count for a run ("its evaluated set"): those of its latest evaluation step
 * (phase "eval", highest step) or, when the run has no evaluation, of its last training step — and for an
 * evaluation run of several independent passes (`repeats: k`), every pass it committed (eval steps 1…k).
 * An instance is solved by the run if any of those trajectories has outcome "success".
 */
import { runListSelect } from "../runs/service";
import { Prisma } from "@prisma/client";
import { prisma } from "../../../lib/db";
import { DomainError } from "../../lib/errors";
import { diffConfigs } from "../../../lib/compare/config-diff";

export interface InstanceOutcome {
  runId: string;
  instanceId: string;
  dataSource: string;
  /** Trajectories of this instance in the evaluated set (k). */
  n: number;
  successes: number;
  meanReward: number;
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

/** Per (run, instance) counts over each run's evaluated set (or over `only`: e.g. one pass of a run). */
export async function instanceOutcomes(runIds: string[], only?: EvaluatedSet[]): Promise<{ sets: EvaluatedSet[]; outcomes: InstanceOutcome[] }> {
  const sets = only ?? (await evaluatedSets(runIds));
  if (sets.length === 0) return { sets, outcomes: [] };
  const conditions = sets.map((s) => Prisma.sql`(t."runId" = ${s.runId} and t.phase = ${s.phase} and t.step between ${s.fromStep ?? s.step} and ${s.step})`);
  const outcomes = await prisma.$queryRaw<InstanceOutcome[]>`
    select t."runId", t."instanceId",
           coalesce(min(t.summary->>'dataSource'), 'unknown') as "dataSource",
           count(*)::int as n,
           (count(*) filter (where t.outcome = 'success'))::int as successes,
           avg(t.reward)::float8 as "meanReward"
    from trajectory t
    where ${Prisma.join(conditions, " or ")}
    group by t."runId", t."instanceId"
    order by t."instanceId", t."runId"`;
  return { sets, outcomes };
}

export interface OutcomeRow {
  instanceId: string;
  dataSource: string;
  /** One cell per requested run, in input order; null where the run did not evaluate the instance. */
  cells: ({ solved: boolean; successes: number; n: number; meanReward: number } | null)[];
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
    row.cells[col] = { solved: o.successes > 0, successes: o.successes, n: o.n, meanReward: o.meanReward };
  }
  const rows = [...byInstance.values()];
  for (const row of rows) {
    const solved = row.cells.filter((c) => c != null).map((c) => c!.solved);
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
  const { sets, outcomes } = await instanceOutcomes(ids);
  const rows = outcomeTable(ids, outcomes);
  const MAX_ROWS = 5000;
  return {
    runs: runs.map(({ config: _config, ...r }) => ({ ...r, evaluated: sets.find((s) => s.runId === r.id) ?? null })),
    configDiff: diffConfigs(runs.map((r) => r.config)),
    outcomes: rows.slice(0, MAX_ROWS),
    outcomesTruncated: rows.length > MAX_ROWS,
    /** Instances solved by each run, and solved by it while unsolved by another run. */
    solvedCounts: ids.map((_, col) => ({
      solved: rows.filter((r) => r.cells[col]?.solved).length,
      evaluated: rows.filter((r) => r.cells[col] != null).length,
      uniquelySolved: rows.filter((r) => r.cells[col]?.solved && r.cells.some((c, j) => j !== col && c != null && !c.solved)).length,
    })),
  };
}
