/**
 * A run's evaluations, one row per committed evaluation step: a training run's own evaluations (kind
 * eval) and each evaluation suite's (kind suite:<name>, lib/eval-suites.ts), an evaluation run's one
 * pass. Each row carries the headline numbers read from the step's own metrics — mean reward, success
 * (the share of episodes the benchmark's own checker counts as won: avg@k), pass@k — and its episode
 * count; the run page's evaluation table and the study table (server/features/studies) read these.
 */
import { Prisma } from "@prisma/client";
import { z } from "zod";
import { prisma } from "../../../lib/db";
import { suiteOfKind, SUITE_PREFIX } from "../../../lib/eval-suites";

export interface EvaluationRow {
  runId: string;
  /** The evaluation suite (null: the run's own evaluation of data.dataset). */
  suite: string | null;
  /** What was evaluated: the suite's name, or the dataset. */
  benchmark: string;
  dataset: string;
  /** The split evaluated; null for a training run's own evaluation, whose split its environment picks (e.g. the test split when there is one). */
  split: string | null;
  step: number;
  finishedAt: Date;
  /** Episodes committed (tasks × trials). */
  episodes: number;
  /** Trials per task (the k of pass@k and avg@k), when the step recorded them. */
  k: number | null;
  reward: number | null;
  /** Share of episodes won by the benchmark's own definition (avg@k). */
  success: number | null;
  passAtK: number | null;
  /** Every metric of the step, as the engine named it (unprefixed: reward/mean, val/pass@4, val/tau2/pass^1, …). */
  metrics: Record<string, number>;
}

const storedConfig = z
  .object({
    kind: z.string().optional(),
    data: z.object({ dataset: z.string().optional(), split: z.string().optional() }).partial().optional(),
    schedule: z.object({ evalSuites: z.array(z.object({ name: z.string(), dataset: z.string(), split: z.string().optional() }).passthrough()).optional() }).partial().optional(),
  })
  .passthrough();

function numbers(json: unknown): Record<string, number> {
  if (!json || typeof json !== "object" || Array.isArray(json)) return {};
  return Object.fromEntries(Object.entries(json as Record<string, unknown>).filter((e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1])));
}

/** The k of an evaluation's avg@k / pass@k metrics (engine: `val/avg@<k>`). */
function kOf(metrics: Record<string, number>): number | null {
  for (const key of Object.keys(metrics)) {
    const m = /^val\/avg@(\d+)$/.exec(key);
    if (m) return Number(m[1]);
  }
  return null;
}

/** Every committed evaluation of the given runs, by run, then own evaluation before suites, then step. */
export async function runEvaluations(runIds: string[]): Promise<EvaluationRow[]> {
  if (runIds.length === 0) return [];
  const [runs, steps, counts] = await Promise.all([
    prisma.run.findMany({ where: { id: { in: runIds } }, select: { id: true, config: true } }),
    prisma.step.findMany({
      where: { runId: { in: runIds }, OR: [{ kind: "eval" }, { kind: { startsWith: SUITE_PREFIX } }] },
      orderBy: [{ runId: "asc" }, { index: "asc" }],
      select: { runId: true, kind: true, index: true, finishedAt: true, metrics: true },
    }),
    // Episodes per evaluated step: one range of the (runId, phase, step, …) key per step, not a pass over
    // the run's trajectories (a LIKE on phase is no index bound under the database's collation).
    prisma.$queryRaw<{ runId: string; phase: string; step: number; n: number }[]>`
      select s."runId", s.kind as phase, s.index as step,
             (select count(*)::int from trajectory t where t."runId" = s."runId" and t.phase = s.kind and t.step = s.index) as n
      from step s
      where s."runId" in (${Prisma.join(runIds)}) and (s.kind = 'eval' or s.kind like ${`${SUITE_PREFIX}%`})`,
  ]);
  const configs = new Map(runs.map((r) => [r.id, storedConfig.safeParse(r.config)]));
  const episodes = new Map(counts.map((c) => [`${c.runId}|${c.phase}|${c.step}`, c.n]));
  const rows = steps.map((s): EvaluationRow => {
    const parsed = configs.get(s.runId);
    const config = parsed?.success ? parsed.data : {};
    const suite = suiteOfKind(s.kind);
    const declared = suite === null ? undefined : config.schedule?.evalSuites?.find((x) => x.name === suite);
    const dataset = declared?.dataset ?? config.data?.dataset ?? "builtin:shop";
    const split = declared ? (declared.split ?? "test") : config.kind === "eval" ? (config.data?.split ?? "train") : null;
    const metrics = numbers(s.metrics);
    const k = kOf(metrics);
    return {
      runId: s.runId,
      suite,
      benchmark: suite ?? dataset,
      dataset,
      split,
      step: s.index,
      finishedAt: s.finishedAt,
      episodes: episodes.get(`${s.runId}|${s.kind}|${s.index}`) ?? 0,
      k,
      reward: metrics["reward/mean"] ?? null,
      success: k === null ? null : (metrics[`val/avg@${k}`] ?? null),
      passAtK: k === null ? null : (metrics[`val/pass@${k}`] ?? null),
      metrics,
    };
  });
  const order = new Map(runIds.map((id, i) => [id, i]));
  return rows.sort((a, b) => order.get(a.runId)! - order.get(b.runId)! || (a.suite ?? "").localeCompare(b.suite ?? "") || a.step - b.step);
}
