/**
 * The world-model view of a run: where the policy's imagined world diverges from the real one.
 * It reads the per-step rollups written when each step commits (worker/runner/fidelity-rollup.ts:
 * `fidelity_stat` per step and tool, `fidelity_divergence` with each step's 50 most frequent
 * divergences) through the run-level rollups triggers keep on them (migration 20261203300000:
 * `fidelity_tool_total`, `fidelity_step_rollup`, `fidelity_divergence_total`), so a request reads
 * about tools + maxSteps + divergence kinds rows whatever the number of steps:
 * - per tool: comparisons, mean score, exact-match rate, error agreement, invalid rehearsals;
 * - per step: the same numbers per training / evaluation step, in buckets of several steps once a phase
 *   spans more than `maxSteps` steps (the chart's width; aligned like the metric charts, rollup.ts);
 * - the most frequent divergences (tool, field, rehearsed value, real value) with example turns from the
 *   newest step that shows them. Counts add up each step's top 50, so a kind that never makes a step's
 *   top 50 is not counted (docs/FIDELITY.md).
 */
import { Prisma } from "@prisma/client";
import { prisma } from "../../../lib/db";
import { notFound } from "../../lib/errors";
import { bucketPlan } from "../metrics/rollup";

export interface WorldModelInput {
  runId: string;
  phase: "all" | "train" | "eval";
  /** Divergence rows to return (most frequent first). */
  limit: number;
  /** Only this tool's divergences (the per-tool and per-step tables always cover every tool). */
  tool?: string | null;
  /** Points per phase on the per-step chart: longer phases are bucketed (default 300). */
  maxSteps?: number;
}

export interface FidelityAggregate {
  comparisons: number;
  meanScore: number;
  exactRate: number;
  errorAgreementRate: number;
  /** Share of comparisons whose rehearsal broke the output format (null on turns stored before the outcome field). */
  invalidRate: number;
  /** Both sides were errors. */
  bothErrorRate: number;
}

export interface ToolFidelity extends FidelityAggregate {
  tool: string;
}

export interface StepFidelity extends FidelityAggregate {
  /** The first step of the point (its only step unless the phase is bucketed). */
  step: number;
  /** The last step the point covers (= step when not bucketed). */
  toStep: number;
  phase: string;
}

export interface DivergenceExample {
  trajectoryId: string;
  turnIndex: number;
  step: number;
}

export interface DivergenceRow {
  tool: string;
  path: string;
  rehearsed: string | null;
  real: string | null;
  count: number;
  /** Up to three turns showing it, newest step first. */
  examples: DivergenceExample[];
}

export interface WorldModel {
  overall: FidelityAggregate | null;
  tools: ToolFidelity[];
  steps: StepFidelity[];
  divergences: DivergenceRow[];
  /** Distinct divergence kinds in the run (before the limit). */
  divergenceKinds: number;
}

interface AggRow {
  n: bigint | null;
  score: number | null;
  exact: number | null;
  err: number | null;
  invalid: number | null;
  both: number | null;
}

function aggregate(r: AggRow): FidelityAggregate {
  return {
    comparisons: Number(r.n ?? 0),
    meanScore: r.score ?? 0,
    exactRate: r.exact ?? 0,
    errorAgreementRate: r.err ?? 0,
    invalidRate: r.invalid ?? 0,
    bothErrorRate: r.both ?? 0,
  };
}

const AGGREGATES = Prisma.sql`
  sum(comparisons)::bigint as n,
  (sum("scoreSum") / nullif(sum(comparisons), 0))::float8 as score,
  (sum(exact)::float8 / nullif(sum(comparisons), 0)) as exact,
  (sum("errorAgree")::float8 / nullif(sum(comparisons), 0)) as err,
  (sum(invalid)::float8 / nullif(sum(comparisons), 0)) as invalid,
  (sum("bothErrors")::float8 / nullif(sum(comparisons), 0)) as both`;

type StepRow = AggRow & { step: number; to: number; phase: string; b: number };

/** Per phase: its first and last step (two index probes each), then raw steps or rollup buckets (bucketPlan). */
async function stepPoints(runId: string, phaseFilter: WorldModelInput["phase"], maxSteps: number): Promise<StepFidelity[]> {
  const phase = phaseFilter === "all" ? Prisma.empty : Prisma.sql`and phase = ${phaseFilter}`;
  const bounds = await prisma.$queryRaw<{ phase: string; lo: number; hi: number }[]>`
    select p.phase,
      (select min(step) from fidelity_stat s where s."runId" = ${runId} and s.phase = p.phase) as lo,
      (select max(step) from fidelity_stat s where s."runId" = ${runId} and s.phase = p.phase) as hi
    from (select distinct phase from fidelity_tool_total where "runId" = ${runId} ${phase}) p`;
  const parts = await Promise.all(
    bounds
      .filter((b) => b.lo != null && b.hi != null)
      .map(async (b): Promise<StepRow[]> => {
        const plan = bucketPlan(b.lo, b.hi, maxSteps);
        if (plan.mode === "raw") {
          // Width 1 (a phase of ≤ maxSteps steps) is one point per step, as before the buckets.
          return prisma.$queryRaw<StepRow[]>`
            select min(step)::int as step, max(step)::int as to, phase, b, ${AGGREGATES}
            from (select *, (step - ${b.lo}::int) / ${plan.width}::int as b from fidelity_stat where "runId" = ${runId} and phase = ${b.phase}) s
            group by phase, b`;
        }
        const { width, level, firstBucket: first, lastBucket: last } = plan;
        // Rollup buckets wholly inside [lo, hi], and the raw steps of the partial buckets at either end.
        return prisma.$queryRaw<StepRow[]>`
          with parts as (
            select floor((r.bucket::float8 * ${level}::int) / ${width}::int)::int as b, r."minStep" as lo, r."maxStep" as hi,
              r.comparisons, r."scoreSum", r.exact, r."errorAgree", r.invalid, r."bothErrors"
            from fidelity_step_rollup r
            where r."runId" = ${runId} and r.phase = ${b.phase} and r.width = ${level}::int and r.bucket between ${first}::int and ${last}::int
            union all
            select floor(s.step::float8 / ${width}::int)::int, s.step, s.step, s.comparisons, s."scoreSum", s.exact, s."errorAgree", s.invalid, s."bothErrors"
            from fidelity_stat s
            where s."runId" = ${runId} and s.phase = ${b.phase} and s.step between ${b.lo}::int and least(${b.hi}::int, ${first}::int * ${level}::int - 1)
            union all
            select floor(s.step::float8 / ${width}::int)::int, s.step, s.step, s.comparisons, s."scoreSum", s.exact, s."errorAgree", s.invalid, s."bothErrors"
            from fidelity_stat s
            where s."runId" = ${runId} and s.phase = ${b.phase}
              and s.step between greatest(${b.lo}::int, (${last}::int + 1) * ${level}::int, ${first}::int * ${level}::int) and ${b.hi}::int
          )
          select min(lo)::int as step, max(hi)::int as to, ${b.phase} as phase, b, ${AGGREGATES}
          from parts group by b`;
      }),
  );
  return parts
    .flat()
    .sort((a, b) => a.step - b.step || (a.phase < b.phase ? -1 : a.phase > b.phase ? 1 : 0))
    .map((r) => ({ step: r.step, toStep: r.to, phase: r.phase, ...aggregate(r) }));
}

export async function worldModel(input: WorldModelInput): Promise<WorldModel> {
  const run = await prisma.run.findUnique({ where: { id: input.runId }, select: { id: true } });
  if (!run) throw notFound("run", input.runId);
  const phase = input.phase === "all" ? Prisma.empty : Prisma.sql`and phase = ${input.phase}`;
  const tool = input.tool ? Prisma.sql`and tool = ${input.tool}` : Prisma.empty;
  const [overallRows, toolRows, steps, divergenceRows, kindRows] = await Promise.all([
    prisma.$queryRaw<AggRow[]>`select ${AGGREGATES} from fidelity_tool_total where "runId" = ${input.runId} ${phase}`,
    prisma.$queryRaw<(AggRow & { tool: string })[]>`
      select tool, ${AGGREGATES} from fidelity_tool_total where "runId" = ${input.runId} ${phase} group by tool`,
    stepPoints(input.runId, input.phase, input.maxSteps ?? 300),
    prisma.$queryRaw<{ tool: string; path: string; rehearsed: string | null; real: string | null; n: bigint; examples: DivergenceExample[] }[]>`
      with g as (
        select tool, path, rehearsed, "real", sum(count)::bigint as n, max("lastStep") as last
        from fidelity_divergence_total where "runId" = ${input.runId} ${phase} ${tool}
        group by tool, path, rehearsed, "real"
        order by n desc, tool, path, rehearsed nulls first, "real" nulls first
        limit ${input.limit}
      )
      -- The latest step's examples, by one probe per returned divergence: aggregating the examples of
      -- every row (a sort of all the run's divergences with their JSON) took 1.8 s at 15,000 steps.
      select g.tool, g.path, g.rehearsed, g."real", g.n,
        (select d.examples from fidelity_divergence d
         where d."runId" = ${input.runId} and d.step = g.last and d.tool = g.tool and d.path = g.path
           and d.rehearsed is not distinct from g.rehearsed and d."real" is not distinct from g."real" ${phase}
         limit 1) as examples
      from g
      order by g.n desc, g.tool, g.path, g.rehearsed nulls first, g."real" nulls first`,
    prisma.$queryRaw<{ n: bigint }[]>`
      select count(*)::bigint as n from (select distinct tool, path, rehearsed, "real" from fidelity_divergence_total where "runId" = ${input.runId} ${phase} ${tool}) k`,
  ]);
  const tools = toolRows.map((r) => ({ tool: r.tool, ...aggregate(r) }));
  const overall = overallRows[0] && Number(overallRows[0].n ?? 0) > 0 ? aggregate(overallRows[0]) : null;
  // Worst tools first: the ones whose imagined world is furthest from the real one.
  tools.sort((a, b) => a.meanScore - b.meanScore || b.comparisons - a.comparisons || a.tool.localeCompare(b.tool));
  return {
    overall,
    tools,
    steps,
    divergences: divergenceRows.map((r) => ({
      tool: r.tool,
      path: r.path,
      rehearsed: r.rehearsed,
      real: r.real,
      count: Number(r.n),
      examples: (r.examples ?? []).slice(0, 3),
    })),
    divergenceKinds: Number(kindRows[0]?.n ?? 0),
  };
}
