/**
 * Trajectory browsing: lists (list columns only, keyset pages), instance groups, one trajectory with its
 * turns paged, raw JSON, previous/next for keyboard navigation, and filter facets.
 *
 * Default list order: step desc, groupId, rolloutIndex, id — newest step first with the K rollouts of a
 * group together (or by (reward, id) ascending, or exactly reversed). The keyset predicate always carries a plain bound on the leading
 * column (`step <= anchor.step`) so Postgres starts its (runId, step) or (runId, reward) index scan at the
 * anchor instead of filtering from the top.
 */
import { Prisma } from "@prisma/client";
import { prisma } from "../../../lib/db";
import { notFound } from "../../lib/errors";
import { suiteKind, suiteOfKind, SUITE_PREFIX } from "../../../lib/eval-suites";

export const trajectoryListSelect = {
  id: true,
  runId: true,
  step: true,
  phase: true,
  instanceId: true,
  groupId: true,
  rolloutIndex: true,
  paradigm: true,
  reward: true,
  outcome: true,
  errorKind: true,
  errorCause: true,
  terminationReason: true,
  actTokens: true,
  rehearseTokens: true,
  numTurns: true,
  fidelity: true,
} satisfies Prisma.TrajectorySelect;

export const turnSelect = {
  index: true,
  role: true,
  text: true,
  toolCalls: true,
  rehearsedResponse: true,
  realResponse: true,
  fidelity: true,
  errorCode: true,
  promptTokens: true,
  responseTokens: true,
  advantage: true,
} satisfies Prisma.TurnSelect;

export const verdictSelect = {
  id: true,
  userTurn: true,
  turnIndex: true,
  itemId: true,
  question: true,
  weight: true,
  passed: true,
  callFailed: true,
  analysis: true,
} satisfies Prisma.ChecklistVerdictSelect;

export interface TrajectoryFilters {
  runId: string;
  stepMin?: number;
  stepMax?: number;
  rewardMin?: number;
  rewardMax?: number;
  terminationReason?: string;
  outcome?: string;
  instanceId?: string;
  paradigm?: string;
  phase?: "train" | "eval" | "private";
  /** An evaluation suite's trajectories (phase suite:<name>). */
  suite?: string;
  sort?: TrajectorySort;
}

type Anchor = { id: string; step: number; groupId: string; rolloutIndex: number; reward: number };

/** List orders: by step (groups together), or by reward for "worst / best rollouts first". */
export type TrajectorySort = "step" | "reward_asc" | "reward_desc";

function orderOf(sort: TrajectorySort, direction: "after" | "before"): Prisma.TrajectoryOrderByWithRelationInput[] {
  const fwd = direction === "after";
  const asc = fwd ? "asc" : "desc";
  const desc = fwd ? "desc" : "asc";
  if (sort === "reward_asc") return [{ reward: asc }, { id: asc }];
  // reward_desc is reward_asc reversed (ties by id descending), so one (runId, reward, id) index serves both.
  if (sort === "reward_desc") return [{ reward: desc }, { id: desc }];
  return [{ step: desc }, { groupId: asc }, { rolloutIndex: asc }, { id: asc }];
}

/**
 * Rows strictly after (direction "after") or before the anchor in list order, as disjoint parts in list
 * order. By reward there are two: the anchor's ties beyond its id (an index range on (runId, reward, id)),
 * then the rewards beyond it. One OR of both made Postgres walk every tie before the anchor's id first —
 * at a million trajectories with a handful of distinct rewards, 200,000 rows for a 200-row page.
 */
function keyset(a: Anchor, sort: TrajectorySort, direction: "after" | "before"): Prisma.TrajectoryWhereInput[] {
  const after = direction === "after";
  const cmp = after ? "gt" : "lt";
  if (sort !== "step") {
    // Moving forward goes up in (reward, id) for reward_asc and down for reward_desc.
    const up = (sort === "reward_asc") === after;
    return [{ reward: a.reward, id: up ? { gt: a.id } : { lt: a.id } }, { reward: up ? { gt: a.reward } : { lt: a.reward } }];
  }
  return [
    {
      AND: [
        { step: after ? { lte: a.step } : { gte: a.step } },
        {
          OR: [
            { step: after ? { lt: a.step } : { gt: a.step } },
            { step: a.step, groupId: { [cmp]: a.groupId } },
            { step: a.step, groupId: a.groupId, rolloutIndex: { [cmp]: a.rolloutIndex } },
            { step: a.step, groupId: a.groupId, rolloutIndex: a.rolloutIndex, id: { [cmp]: a.id } },
          ],
        },
      ],
    },
  ];
}

/** Up to `take` rows under `where`, from each keyset part in turn (the parts are disjoint and in list order). */
async function findInParts<S extends Prisma.TrajectorySelect>(
  where: Prisma.TrajectoryWhereInput,
  parts: Prisma.TrajectoryWhereInput[],
  orderBy: Prisma.TrajectoryOrderByWithRelationInput[],
  take: number,
  select: S,
) {
  const rows: Prisma.TrajectoryGetPayload<{ select: S }>[] = [];
  for (const part of parts.length ? parts : [{}]) {
    if (rows.length >= take) break;
    const and = [...((where.AND as Prisma.TrajectoryWhereInput[]) ?? []), part];
    rows.push(...((await prisma.trajectory.findMany({ where: { ...where, AND: and }, orderBy, take: take - rows.length, select })) as Prisma.TrajectoryGetPayload<{ select: S }>[]));
  }
  return rows;
}

function filterWhere(f: TrajectoryFilters): Prisma.TrajectoryWhereInput {
  const where: Prisma.TrajectoryWhereInput = { runId: f.runId };
  const and: Prisma.TrajectoryWhereInput[] = [];
  if (f.stepMin != null) and.push({ step: { gte: f.stepMin } });
  if (f.stepMax != null) and.push({ step: { lte: f.stepMax } });
  if (f.rewardMin != null) and.push({ reward: { gte: f.rewardMin } });
  if (f.rewardMax != null) and.push({ reward: { lte: f.rewardMax } });
  if (f.terminationReason) where.terminationReason = f.terminationReason;
  if (f.outcome) where.outcome = f.outcome;
  if (f.instanceId) where.instanceId = f.instanceId;
  if (f.paradigm) where.paradigm = f.paradigm;
  // Private test-time attempts are listed only when asked for: they belong to their committed execution.
  where.phase = f.suite ? suiteKind(f.suite) : (f.phase ?? { not: "private" });
  if (and.length) where.AND = and;
  return where;
}

async function anchorOf(id: string, runId?: string): Promise<Anchor | null> {
  const row = await prisma.trajectory.findUnique({ where: { id }, select: { id: true, runId: true, step: true, groupId: true, rolloutIndex: true, reward: true } });
  if (!row || (runId && row.runId !== runId)) return null;
  return row;
}

export async function listTrajectories(input: TrajectoryFilters & { limit: number; cursor?: string | null }) {
  const where = filterWhere(input);
  let parts: Prisma.TrajectoryWhereInput[] = [];
  if (input.cursor) {
    const anchor = await anchorOf(input.cursor, input.runId);
    if (!anchor) throw notFound("trajectory cursor", input.cursor);
    parts = keyset(anchor, input.sort ?? "step", "after");
  }
  const rows = await findInParts(where, parts, orderOf(input.sort ?? "step", "after"), input.limit + 1, trajectoryListSelect);
  const hasMore = rows.length > input.limit;
  const page = hasMore ? rows.slice(0, input.limit) : rows;
  const attempts = await privateAttemptCounts(page.map((r) => r.id));
  const items = page.map((row) => ({ ...row, privateAttempts: attempts.get(row.id) ?? 0 }));
  return { items, nextCursor: hasMore ? items[items.length - 1]!.id : null };
}

/**
 * Private test-time attempts per committed trajectory, for the given ids only (one probe each of the
 * (parentId) index). Not Prisma's `_count` select: that joins a GROUP BY over the whole trajectory table
 * (every run's rows) before the LIMIT, which made a 200-row page cost a pass over the table.
 */
export async function privateAttemptCounts(ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ parentId: string; n: number }[]>`
    select "parentId", count(*)::int as n from trajectory where "parentId" = any(${ids}::text[]) group by "parentId"`;
  return new Map(rows.map((r) => [r.parentId, r.n]));
}

/** Previous and next trajectory in list order under the same filters (for J/K navigation). */
export async function neighbours(input: TrajectoryFilters & { id: string }) {
  const anchor = await anchorOf(input.id, input.runId);
  if (!anchor) throw notFound("trajectory", input.id);
  const base = filterWhere(input);
  const find = async (direction: "after" | "before") =>
    (await findInParts(base, keyset(anchor, input.sort ?? "step", direction), orderOf(input.sort ?? "step", direction), 1, { id: true, step: true, rolloutIndex: true }))[0] ?? null;
  const [previous, next] = await Promise.all([find("before"), find("after")]);
  return { previous, next };
}

type AdvantageRow = { trajectoryId: string; role: string; mean: number | null; min: number | null; max: number | null; n: number };
type PreviewRow = { trajectoryId: string; role: string; text: string; errorCode: string | null };

/** The K rollouts of one instance group at one step, with group statistics and per-role advantages. */
export async function getGroup(input: { runId: string; step: number; groupId: string; phase: string }) {
  const members = await prisma.trajectory.findMany({
    where: { runId: input.runId, step: input.step, groupId: input.groupId, phase: input.phase },
    orderBy: { rolloutIndex: "asc" },
    select: { ...trajectoryListSelect, summary: true },
  });
  if (members.length === 0) throw notFound("group", `${input.groupId} at step ${input.step}`);
  const ids = members.map((m) => m.id);
  const [advantages, previews] = await Promise.all([
    prisma.$queryRaw<AdvantageRow[]>`
      select "trajectoryId", role, avg(advantage) as mean, min(advantage) as min, max(advantage) as max, count(advantage)::int as n
      from turn where "runId" = ${input.runId} and "trajectoryId" in (${Prisma.join(ids)}) and advantage is not null
      group by "trajectoryId", role`,
    // The last turn of each rollout, shortened: what the rollout ended on.
    prisma.$queryRaw<PreviewRow[]>`
      select u."trajectoryId", u.role, left(u.text, 600) as text, u."errorCode"
      from turn u join trajectory t on u."runId" = t."runId" and t.id = u."trajectoryId" and u.index = t."numTurns" - 1
      where t.id in (${Prisma.join(ids)})`,
  ]);
  const rewards = members.map((m) => m.reward);
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  const std = Math.sqrt(rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / rewards.length);
  return {
    runId: input.runId,
    step: input.step,
    phase: input.phase,
    groupId: input.groupId,
    instanceId: members[0]!.instanceId,
    rewardMean: mean,
    rewardStd: std,
    members: members.map(({ summary, ...m }) => ({
      ...m,
      summary: summary as Record<string, unknown>,
      advantages: Object.fromEntries(
        advantages
          .filter((a) => a.trajectoryId === m.id)
          .map((a) => [a.role, { mean: a.mean == null ? null : Number(a.mean), min: a.min, max: a.max, count: a.n }]),
      ) as Record<string, { mean: number | null; min: number | null; max: number | null; count: number }>,
      lastTurn: previews.find((p) => p.trajectoryId === m.id) ?? null,
    })),
  };
}

/** `runId` (the turn partition to read) is looked up from the trajectory when the caller does not know it. */
export async function listTurns(trajectoryId: string, from: number, limit: number, runId?: string) {
  const run = runId ?? (await prisma.trajectory.findUnique({ where: { id: trajectoryId }, select: { runId: true } }))?.runId;
  if (!run) return { turns: [], nextFrom: null };
  const turns = await prisma.turn.findMany({
    where: { runId: run, trajectoryId, index: { gte: from } },
    orderBy: { index: "asc" },
    take: limit + 1,
    select: turnSelect,
  });
  const hasMore = turns.length > limit;
  const page = hasMore ? turns.slice(0, limit) : turns;
  return { turns: page, nextFrom: hasMore ? page[page.length - 1]!.index + 1 : null };
}

export const trajectoryDetailSelect = {
  ...trajectoryListSelect,
  summary: true,
  createdAt: true,
  parentId: true,
  run: { select: { name: true, paradigm: true, archivedAt: true } },
} satisfies Prisma.TrajectorySelect;

/**
 * One trajectory: header, all verdicts, and one page of turns from `turnsFrom` (later pages through
 * listTurns or `nextTurnsFrom`). With `runId` (the REST path), a trajectory of another run is not found.
 */
export async function getTrajectory(input: { id: string; runId?: string; turnsFrom: number; turnsLimit: number }) {
  const row = await prisma.trajectory.findUnique({
    where: { id: input.id, ...(input.runId ? { runId: input.runId } : {}) },
    select: trajectoryDetailSelect,
  });
  if (!row) throw notFound(input.runId ? `trajectory ${input.id} of run` : "trajectory", input.runId ?? input.id);
  const trajectory = { ...row, privateAttempts: (await privateAttemptCounts([row.id])).get(row.id) ?? 0 };
  const [verdicts, page] = await Promise.all([
    prisma.checklistVerdict.findMany({ where: { trajectoryId: input.id }, orderBy: [{ userTurn: "asc" }, { turnIndex: "asc" }, { itemId: "asc" }], select: verdictSelect }),
    listTurns(input.id, input.turnsFrom, input.turnsLimit, row.runId),
  ]);
  return { trajectory, verdicts, turns: page.turns, nextTurnsFrom: page.nextFrom };
}

/** Everything about one trajectory, for the "download JSON" escape hatch. */
export async function rawTrajectory(id: string) {
  const trajectory = await prisma.trajectory.findUnique({
    where: { id },
    include: {
      turns: { orderBy: { index: "asc" }, select: { id: true, ...turnSelect } },
      verdicts: { orderBy: [{ userTurn: "asc" }, { turnIndex: "asc" }], select: verdictSelect },
    },
  });
  if (!trajectory) throw notFound("trajectory", id);
  return trajectory;
}

/**
 * Values for the filter dropdowns without scanning the run's rows: termination reasons with counts from the
 * run's trajectory_tally rows, instances by a skip scan of (runId, instanceId), and
 * the step and reward ranges from index ends. Outcome, phase and paradigm are fixed enumerations.
 */
export async function facets(runId: string, maxInstances: number) {
  const [reasonRows, instances, ranges, suiteSteps] = await Promise.all([
    // From the run's tally (kept by triggers on trajectory): a few rows, not an index pass over the run.
    // Private test-time attempts are not listed, so they are not counted.
    prisma.$queryRaw<{ value: string; count: number }[]>`
      select "terminationReason" as value, sum(n)::int as count from trajectory_tally where "runId" = ${runId} and phase <> 'private'
      group by "terminationReason"`,
    prisma.$queryRaw<{ value: string }[]>`
      with recursive i(v, n) as (
        select min("instanceId"), 1 from trajectory where "runId" = ${runId}
        union all
        select (select min("instanceId") from trajectory where "runId" = ${runId} and "instanceId" > i.v), n + 1
        from i where i.v is not null and n <= ${maxInstances}
      )
      select v as value from i where v is not null`,
    prisma.$queryRaw<{ stepMin: number | null; stepMax: number | null; rewardMin: number | null; rewardMax: number | null }[]>`
      select (select min(step) from trajectory where "runId" = ${runId}) as "stepMin",
             (select max(step) from trajectory where "runId" = ${runId}) as "stepMax",
             (select min(reward) from trajectory where "runId" = ${runId}) as "rewardMin",
             (select max(reward) from trajectory where "runId" = ${runId}) as "rewardMax"`,
    // Evaluation suites with committed steps (the step table is small; trajectories are not scanned).
    prisma.step.findMany({ where: { runId, kind: { startsWith: SUITE_PREFIX } }, distinct: ["kind"], select: { kind: true }, orderBy: { kind: "asc" } }),
  ]);
  const r = ranges[0]!;
  const reasons = reasonRows
    .filter((x) => x.count > 0)
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return {
    total: reasons.reduce((s, x) => s + x.count, 0),
    stepRange: r.stepMin == null ? null : { min: r.stepMin, max: r.stepMax! },
    rewardRange: r.rewardMin == null ? null : { min: r.rewardMin, max: r.rewardMax! },
    terminationReasons: reasons,
    instances: instances.slice(0, maxInstances).map((i) => i.value),
    instancesTruncated: instances.length > maxInstances,
    suites: suiteSteps.map((s) => suiteOfKind(s.kind)!),
  };
}

/**
 * A run's episodes that errored (outcome "error": they could not run and are left out of every score),
 * per cause with one cause in words, against all its committed episodes.
 */
export async function erroredEpisodes(runId: string) {
  // Counts from the run's tally (kept by triggers on trajectory); one example cause per kind by an index probe.
  const [byOutcome, kinds] = await Promise.all([
    prisma.$queryRaw<{ outcome: string; count: number }[]>`
      select outcome, sum(n)::int as count from trajectory_tally where "runId" = ${runId} group by outcome`,
    prisma.$queryRaw<{ kind: string; count: number }[]>`
      select coalesce(nullif("errorKind", ''), 'unknown') as kind, sum(n)::int as count
      from trajectory_tally where "runId" = ${runId} and outcome = 'error'
      group by 1 order by 2 desc, 1`,
  ]);
  const byKind = await Promise.all(
    kinds.map(async (k) => {
      const ex = await prisma.$queryRaw<{ example: string | null }[]>`
        select min("errorCause") as example from (
          select "errorCause" from trajectory where "runId" = ${runId} and outcome = 'error'
            and ${k.kind === "unknown" ? Prisma.sql`("errorKind" is null or "errorKind" = 'unknown')` : Prisma.sql`"errorKind" = ${k.kind}`}
          limit 1000) e`;
      return { ...k, example: ex[0]?.example ?? null };
    }),
  );
  // Private test-time attempts (outcome "private") are no episodes of their own.
  const counted = byOutcome.filter((o) => o.outcome !== "private");
  return {
    episodes: counted.reduce((s, o) => s + o.count, 0),
    errored: counted.find((o) => o.outcome === "error")?.count ?? 0,
    byKind,
  };
}
