/**
 * Studies: a group of runs that differ only in a seed or in a small grid of named settings, launched
 * from one request (the form, `POST /api/v1/studies`, `envace studies create`) and created in ONE
 * transaction with every run and its job (all or none). Read back as groups (a grid cell over its
 * seeds): their charts as mean ± std per step (`studySeries`), and a per-benchmark table of means ± std
 * across seeds for the latest or a chosen step's evaluations (`studyTable`) — a run's own evaluations,
 * its evaluation suites', and evaluation runs that name one of its checkpoints (`policy.checkpoint`).
 */
import { Prisma } from "@prisma/client";
import { z } from "zod";
import type { RunConfig } from "../../../contracts/run-config";
import { prisma } from "../../../lib/db";
import { describeProblems, parseLaunchConfig, type LaunchProblem } from "../../../lib/launch-check";
import {
  attributeProblems,
  cellConfig,
  cellKey,
  cellLabel,
  gridCells,
  gridSettingProblem,
  spread,
  studyRunName,
  studySeeds,
  studySize,
  valueText,
  type GridAxis,
  type GridCell,
} from "../../../lib/studies";
import { DomainError, notFound } from "../../lib/errors";
import { runEvaluations, type EvaluationRow } from "../runs/evaluations";
import { insertRun, launchRefusals, runListSelect } from "../runs/service";

/** Most runs one study may launch: ENVACE_MAX_STUDY_RUNS (default 64). */
export function maxStudyRuns(): number {
  const raw = process.env.ENVACE_MAX_STUDY_RUNS;
  const n = raw === undefined || raw.trim() === "" ? 64 : Number(raw);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, 10_000) : 64;
}

export interface CreateStudyInput {
  name: string;
  tags: string[];
  config?: unknown;
  grid: GridAxis[];
  /** A number of seeds (data.seed, data.seed + 1, …) or the seeds themselves. */
  seeds: number | number[];
}

type FieldError = { path: string; message: string };

const bad = (fieldErrors: FieldError[], what = "cannot launch the study") =>
  new DomainError("BAD_REQUEST", `${what}: ${describeProblems(fieldErrors)}`, fieldErrors);

/** Settings, values and size of a study's grid: every problem on its field, before any config is built. */
function gridProblems(input: CreateStudyInput): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  input.grid.forEach((axis, i) => {
    const problem = gridSettingProblem(axis.setting);
    if (problem) errors.push({ path: `grid.${i}.setting`, message: problem });
    const first = seen.get(axis.setting);
    if (first !== undefined) errors.push({ path: `grid.${i}.setting`, message: `${axis.setting} is already axis ${first} of the grid` });
    else seen.set(axis.setting, i);
    const texts = axis.values.map((v) => JSON.stringify(v));
    const repeated = texts.findIndex((t, j) => texts.indexOf(t) !== j);
    if (repeated >= 0) errors.push({ path: `grid.${i}.values.${repeated}`, message: `${valueText(axis.values[repeated])} is listed twice` });
  });
  if (Array.isArray(input.seeds) && new Set(input.seeds).size !== input.seeds.length) errors.push({ path: "seeds", message: "a seed is listed twice" });
  const seeds = Array.isArray(input.seeds) ? input.seeds.length : input.seeds;
  const size = studySize(input.grid, seeds);
  const limit = maxStudyRuns();
  if (size > limit) {
    const shape = [...input.grid.map((a) => String(a.values.length)), `${seeds} seed${seeds === 1 ? "" : "s"}`].join(" × ");
    errors.push({ path: input.grid.length ? "grid" : "seeds", message: `${shape} is ${size} runs; a study may launch at most ${limit} (the server's ENVACE_MAX_STUDY_RUNS)` });
  }
  if (size < 2 && errors.length === 0) errors.push({ path: "seeds", message: "a study compares runs: give a grid, or at least 2 seeds" });
  return errors;
}

/** Problems of the cells, each where it belongs (lib/studies.ts attributeProblems). */
function placed(axes: GridAxis[], cells: GridCell[], problems: LaunchProblem[][]): FieldError[] {
  const touchesGrid = (p: LaunchProblem) => axes.some((a) => p.path === a.setting || p.path.startsWith(`${a.setting}.`) || a.setting.startsWith(`${p.path}.`));
  const sorted = attributeProblems(axes, cells, problems);
  const out: FieldError[] = [];
  for (const p of sorted.base) {
    // Every cell has it: the base config's, unless it is about a setting the grid sets (then its one value's).
    const single = axes.findIndex((a) => a.values.length === 1 && touchesGrid(p) && (p.path === a.setting || p.path.startsWith(`${a.setting}.`)));
    if (single >= 0) out.push({ path: `grid.${single}.values.0`, message: `${p.path}: ${p.message}` });
    else if (touchesGrid(p)) out.push({ path: "grid", message: `${p.path}: ${p.message} (every cell)` });
    else out.push({ path: `config.${p.path}`, message: p.message });
  }
  for (const v of sorted.values) out.push({ path: `grid.${v.axis}.values.${v.value}`, message: `${v.problem.path}: ${v.problem.message}` });
  for (const c of sorted.cells) out.push({ path: "grid", message: `${cellLabel(cells[c.cell]!.values)}: ${c.problem.path}: ${c.problem.message}` });
  return out;
}

export async function createStudy(userId: string, input: CreateStudyInput, role = "member") {
  if (input.config !== undefined && (typeof input.config !== "object" || input.config === null || Array.isArray(input.config))) {
    throw bad([{ path: "config", message: "must be a run config object" }]);
  }
  const raw = (input.config ?? {}) as Record<string, unknown>;
  const base = parseLaunchConfig(raw);
  if (!base.ok) throw bad(base.errors.map((e) => ({ path: `config.${e.path}`, message: e.message })), "invalid run config");
  const shape = gridProblems(input);
  if (shape.length) throw bad(shape);

  // The schema on every cell's config (a value the schema refuses, a combination it does not allow).
  const cells = gridCells(input.grid);
  const parsed = cells.map((c) => parseLaunchConfig(cellConfig(raw, c.values, null)));
  const schemaErrors = placed(input.grid, cells, parsed.map((p) => (p.ok ? [] : p.errors)));

  // The launch check on each cell the schema takes (the seed changes nothing it looks at): datasets, nodes, context.
  const valid = cells.flatMap((cell, c) => (parsed[c]!.ok ? [{ cell, config: (parsed[c] as { ok: true; config: RunConfig }).config }] : []));
  const refusals: LaunchProblem[][] = [];
  for (const { config } of valid) refusals.push(await launchRefusals(config, { id: userId, role }));
  const launchErrors = placed(input.grid, valid.map((v) => v.cell), refusals);
  if (schemaErrors.length || launchErrors.length) throw bad([...schemaErrors, ...launchErrors]);
  const configs = valid.map((v) => v.config);

  const seeds = studySeeds(base.config.data.seed, input.seeds);
  return prisma.$transaction(
    async (tx) => {
      const study = await tx.study.create({
        data: { name: input.name, baseConfig: base.config as unknown as Prisma.InputJsonValue, grid: input.grid as unknown as Prisma.InputJsonValue, seeds, createdById: userId },
        select: { id: true },
      });
      const runs: { id: string; name: string }[] = [];
      for (const [c, cell] of cells.entries()) {
        for (const seed of seeds) {
          const config = { ...configs[c]!, data: { ...configs[c]!.data, seed } };
          const run = await insertRun(
            tx,
            userId,
            { name: studyRunName(input.name, cell.values, seed), tags: [...new Set([...input.tags, "study"])], study: { id: study.id, cell: { values: cell.values, seed } } },
            config,
          );
          runs.push({ id: run.id, name: run.name });
        }
      }
      return { id: study.id, runs };
    },
    { timeout: 60_000 },
  );
}

const storedCell = z.object({ values: z.record(z.unknown()), seed: z.number() });
const storedGrid = z.array(z.object({ setting: z.string(), values: z.array(z.unknown()) }));

export const studySelect = {
  id: true,
  name: true,
  baseConfig: true,
  grid: true,
  seeds: true,
  createdAt: true,
  createdById: true,
  createdBy: { select: { name: true, email: true } },
} satisfies Prisma.StudySelect;

/** A study's groups: one per grid cell, in grid order, with its runs by seed. */
function groupsOf(grid: GridAxis[], runs: { id: string; studyCell: unknown }[]) {
  const cells = gridCells(grid);
  const groups = cells.map((c) => ({ key: cellKey(c.values), label: cellLabel(c.values) || "all runs", values: c.values, runs: [] as { id: string; seed: number }[] }));
  for (const run of runs) {
    const cell = storedCell.safeParse(run.studyCell);
    if (!cell.success) continue;
    const group = groups.find((g) => g.key === cellKey(cell.data.values));
    group?.runs.push({ id: run.id, seed: cell.data.seed });
  }
  for (const g of groups) g.runs.sort((a, b) => a.seed - b.seed);
  return groups;
}

export async function getStudy(id: string) {
  const study = await prisma.study.findUnique({ where: { id }, select: { ...studySelect, runs: { select: { ...runListSelect, studyCell: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] } } });
  if (!study) throw notFound("study", id);
  const grid = storedGrid.parse(study.grid);
  const { runs, ...rest } = study;
  return { ...rest, grid, runs: runs.map(({ studyCell, ...r }) => ({ ...r, cell: storedCell.safeParse(studyCell).data ?? null })), groups: groupsOf(grid, runs) };
}

/** Studies, newest first (keyset pages), with their runs counted by status. */
export async function listStudies(input: { limit: number; cursor?: string | null }) {
  const where: Prisma.StudyWhereInput = {};
  if (input.cursor) {
    const anchor = await prisma.study.findUnique({ where: { id: input.cursor }, select: { createdAt: true, id: true } });
    if (anchor) where.OR = [{ createdAt: { lt: anchor.createdAt } }, { createdAt: anchor.createdAt, id: { lt: anchor.id } }];
  }
  const rows = await prisma.study.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    select: { id: true, name: true, grid: true, seeds: true, createdAt: true, createdById: true, createdBy: { select: { name: true, email: true } } },
  });
  const hasMore = rows.length > input.limit;
  const page = hasMore ? rows.slice(0, input.limit) : rows;
  const counts = page.length
    ? await prisma.run.groupBy({ by: ["studyId", "status"], where: { studyId: { in: page.map((s) => s.id) } }, _count: true })
    : [];
  const items = page.map((s) => ({
    ...s,
    grid: storedGrid.parse(s.grid),
    runs: Object.fromEntries(counts.filter((c) => c.studyId === s.id).map((c) => [c.status, c._count])) as Record<string, number>,
  }));
  return { items, nextCursor: hasMore ? items[items.length - 1]!.id : null };
}

async function studyRuns(id: string) {
  const study = await prisma.study.findUnique({ where: { id }, select: { grid: true, runs: { select: { id: true, studyCell: true } } } });
  if (!study) throw notFound("study", id);
  return { groups: groupsOf(storedGrid.parse(study.grid), study.runs), runIds: study.runs.map((r) => r.id) };
}

/** The metric keys any run of the study has. */
export async function studyKeys(id: string): Promise<string[]> {
  const { runIds } = await studyRuns(id);
  if (runIds.length === 0) return [];
  const rows = await prisma.$queryRaw<{ key: string }[]>`select distinct key from metric_point where "runId" in (${Prisma.join(runIds)}) order by key`;
  return rows.map((r) => r.key);
}

export interface GroupPoint {
  /** Last step of the bucket. */
  step: number;
  /** Mean across the group's runs of each run's mean in the bucket. */
  mean: number;
  /** Sample standard deviation across the runs (0 with one run). */
  std: number;
  min: number;
  max: number;
  /** Runs with a value in the bucket. */
  n: number;
}

/**
 * The study's charts: per group and key, at most `maxPoints` buckets of equal step width; in each, every
 * run's mean, then their mean and standard deviation across the group's runs (the band is mean ± std).
 */
export async function studySeries(input: { id: string; keys: string[]; maxPoints: number }) {
  const { groups } = await studyRuns(input.id);
  const keys = [...new Set(input.keys)];
  const members = groups.flatMap((g, gi) => g.runs.map((r) => ({ runId: r.id, group: gi })));
  if (keys.length === 0 || members.length === 0) return { bucketSize: 1, groups: groups.map((g) => ({ key: g.key, label: g.label, runs: g.runs.length, series: [] as { key: string; points: GroupPoint[] }[] })) };
  const ids = members.map((m) => m.runId);
  const top = await prisma.$queryRaw<{ max: number | null }[]>`
    select max(step)::int as max from metric_point where "runId" in (${Prisma.join(ids)}) and key in (${Prisma.join(keys)})`;
  const bucket = Math.max(1, Math.ceil((top[0]?.max ?? 1) / input.maxPoints));
  const rows = await prisma.$queryRaw<{ grp: number; key: string; step: number; mean: number; std: number | null; min: number; max: number; n: number }[]>`
    with g(run_id, grp) as (select * from unnest(${ids}::text[], ${members.map((m) => m.group)}::int[])),
    per_run as (
      select g.grp, m."runId", m.key, (m.step - 1) / ${bucket}::int as b, avg(m.value) as v, max(m.step) as s
      from metric_point m join g on g.run_id = m."runId"
      where m.key in (${Prisma.join(keys)})
      group by g.grp, m."runId", m.key, b
    )
    select grp, key, max(s)::int as step, avg(v)::float8 as mean, stddev_samp(v)::float8 as std, min(v)::float8 as min, max(v)::float8 as max, count(*)::int as n
    from per_run group by grp, key, b order by grp, key, b`;
  return {
    bucketSize: bucket,
    groups: groups.map((g, gi) => ({
      key: g.key,
      label: g.label,
      runs: g.runs.length,
      series: keys.map((key) => ({
        key,
        points: rows.filter((r) => r.grp === gi && r.key === key).map((r): GroupPoint => ({ step: r.step, mean: r.mean, std: r.std ?? 0, min: r.min, max: r.max, n: r.n })),
      })),
    })),
  };
}

/** Evaluation runs of the study's runs' checkpoints (their lineage, Run.evaluatedCheckpoint), at the checkpoint's step. */
async function linkedEvaluations(runIds: string[]): Promise<(EvaluationRow & { evaluates: string })[]> {
  if (runIds.length === 0) return [];
  const linked = await prisma.run.findMany({
    where: { kind: "eval", evaluatedCheckpoint: { runId: { in: runIds } } },
    select: { id: true, evaluatedCheckpoint: { select: { runId: true, step: true } } },
  });
  if (linked.length === 0) return [];
  const rows = await runEvaluations(linked.map((l) => l.id));
  return rows.flatMap((row) => {
    const ck = linked.find((l) => l.id === row.runId)?.evaluatedCheckpoint;
    return ck ? [{ ...row, step: ck.step, evaluates: ck.runId }] : [];
  });
}

export interface TableCell {
  /** Runs with an evaluation of this benchmark at the step (of the group's). */
  n: number;
  runs: number;
  reward: ReturnType<typeof spread>;
  success: ReturnType<typeof spread>;
  passAtK: ReturnType<typeof spread>;
  /** The step each run's value comes from, by run id. */
  steps: Record<string, number>;
}

/**
 * Per benchmark (a run's own evaluation of its dataset, each evaluation suite, each dataset an evaluation
 * run of one of its checkpoints evaluated) and group: mean ± std across the group's seeds of reward,
 * success and pass@k, from each run's evaluation at `step` ("latest": each run's last evaluated step of
 * that benchmark). An evaluation run of a checkpoint counts at the checkpoint's step, before the run's
 * own evaluation of the same benchmark and step.
 */
export async function studyTable(input: { id: string; step: number | "latest" }) {
  const { groups, runIds } = await studyRuns(input.id);
  const own = await runEvaluations(runIds);
  const linked = await linkedEvaluations(runIds);
  const all = [...linked.map((r) => ({ ...r, runId: r.evaluates, source: "evaluation run" as const })), ...own.map((r) => ({ ...r, source: r.suite ? ("suite" as const) : ("own" as const) }))];
  const steps = [...new Set(all.map((r) => r.step))].sort((a, b) => a - b);
  const benchmarks = [...new Map(all.map((r) => [r.suite ? `suite:${r.suite}` : r.dataset, { key: r.suite ? `suite:${r.suite}` : r.dataset, suite: r.suite, dataset: r.dataset, split: r.split, label: r.suite ? `${r.suite} (${r.dataset})` : r.dataset }])).values()];
  const rows = benchmarks.map((b) => ({
    ...b,
    cells: groups.map((g): TableCell => {
      const picks = g.runs.flatMap((run) => {
        const mine = all.filter((r) => r.runId === run.id && (r.suite ? `suite:${r.suite}` : r.dataset) === b.key);
        const at = input.step === "latest" ? Math.max(-1, ...mine.map((r) => r.step)) : input.step;
        // An evaluation run of the checkpoint first (it was listed first), else the run's own.
        const pick = mine.find((r) => r.step === at);
        return pick ? [pick] : [];
      });
      return {
        n: picks.length,
        runs: g.runs.length,
        reward: spread(picks.flatMap((p) => (p.reward == null ? [] : [p.reward]))),
        success: spread(picks.flatMap((p) => (p.success == null ? [] : [p.success]))),
        passAtK: spread(picks.flatMap((p) => (p.passAtK == null ? [] : [p.passAtK]))),
        steps: Object.fromEntries(picks.map((p) => [p.runId, p.step])),
      };
    }),
  }));
  return { step: input.step, steps, groups: groups.map((g) => ({ key: g.key, label: g.label, runs: g.runs.length })), rows };
}
