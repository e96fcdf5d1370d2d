/**
 * BFCL scores of an evaluation step, from the trajectories' stored outcomes:
 * - per category: `val/bfcl/<category>/accuracy` = mean reward over its scored trajectories (Avg@k over
 *   trialsPerTask repeats; upstream's correct / total when k = 1), `…/tasks` (entries evaluated), `…/trials`
 *   (scored trajectories) and `…/not_scored` (trajectories of tasks that could not be run: left out, never 0);
 * - upstream's aggregation `val/bfcl/summary/<non_live|live|irrelevance|multi_turn|web_search|memory|agentic|overall>`
 *   (the paper's columns: Web = web_search, Avg = overall) where every part ran — lib/bfcl/paper.ts says why one
 *   has no value; never 0 for a part that was not run.
 * The report (lib/reports/bfcl.ts) rebuilds the paper's table from the per-category metrics.
 */
import { type CategoryResult, type ScoringCategory } from "../../../../lib/bfcl/aggregate";
import { isBfclCategory } from "../../../../lib/bfcl/categories";
import { bfclOutcomeOf, describeBfclCheck, type BfclOutcome } from "../../../../lib/bfcl/outcome";
import { paperRow, type PaperColumnKey } from "../../../../lib/bfcl/paper";
import type { TrajectoryResult } from "../../../engine/step";
import { BFCL_DATA_SOURCE_PREFIX } from "./multi-turn";

export const BFCL_METRIC_PREFIX = "val/bfcl/";

/** Metric names of upstream's aggregates, by the paper column they are. */
const SUMMARY_NAMES: Record<PaperColumnKey, string> = {
  web: "web_search",
  memory: "memory",
  multiTurn: "multi_turn",
  nonLive: "non_live",
  live: "live",
  irrelevance: "irrelevance",
  avg: "overall",
};

/**
 * The BFCL outcome of a trajectory (kept in its episode score's detail). A BFCL episode whose scoring
 * itself failed (the engine keeps `{ error }` as the detail) is an outcome that is not scored, with that error.
 */
export function trajectoryOutcome(t: Pick<TrajectoryResult, "judgements" | "instanceId" | "dataSource" | "terminationReason">): BfclOutcome | null {
  for (let i = t.judgements.length - 1; i >= 0; i--) {
    const o = bfclOutcomeOf(t.judgements[i].detail);
    if (o) return o;
  }
  const last = t.judgements.at(-1)?.detail as { error?: unknown } | undefined;
  if (t.dataSource.startsWith(BFCL_DATA_SOURCE_PREFIX) && typeof last?.error === "string") {
    return { category: t.dataSource.slice(BFCL_DATA_SOURCE_PREFIX.length), taskId: t.instanceId, scored: false, notScoredReason: last.error, valid: false, termination: t.terminationReason };
  }
  return null;
}

export interface CategoryTally {
  category: ScoringCategory;
  tasks: number;
  trials: number;
  correct: number;
  notScored: number;
}

/** Per category: the trajectories, their scored share and successes. */
export function tallyByCategory(trajectories: readonly TrajectoryResult[]): Map<ScoringCategory, CategoryTally> {
  const out = new Map<ScoringCategory, CategoryTally & { ids: Set<string> }>();
  for (const t of trajectories) {
    if (!t.dataSource.startsWith(BFCL_DATA_SOURCE_PREFIX)) continue;
    const category = t.dataSource.slice(BFCL_DATA_SOURCE_PREFIX.length);
    if (!isBfclCategory(category)) continue;
    const tally = out.get(category) ?? { category, tasks: 0, trials: 0, correct: 0, notScored: 0, ids: new Set<string>() };
    tally.ids.add(t.instanceId);
    const outcome = trajectoryOutcome(t);
    // An errored episode, or one never scored as BFCL, is never counted as a failure; success is the checker's verdict.
    if (t.outcome === "error" || !outcome || !outcome.scored) tally.notScored++;
    else {
      tally.trials++;
      if (t.success) tally.correct++;
    }
    out.set(category, tally);
  }
  return new Map([...out].map(([c, { ids, ...rest }]) => [c, { ...rest, tasks: ids.size }]));
}

/** Per-category results as the aggregation takes them (categories with no scored trajectory are left out). */
export function categoryResults(tallies: Map<ScoringCategory, CategoryTally>): Partial<Record<ScoringCategory, CategoryResult>> {
  const out: Partial<Record<ScoringCategory, CategoryResult>> = {};
  for (const [c, t] of tallies) if (t.trials > 0) out[c] = { accuracy: t.correct / t.trials, totalCount: t.tasks };
  return out;
}

export function bfclEvalMetrics(trajectories: readonly TrajectoryResult[]): Record<string, number> {
  const tallies = tallyByCategory(trajectories);
  const m: Record<string, number> = {};
  for (const [c, t] of tallies) {
    if (t.trials > 0) m[`${BFCL_METRIC_PREFIX}${c}/accuracy`] = t.correct / t.trials;
    m[`${BFCL_METRIC_PREFIX}${c}/tasks`] = t.tasks;
    m[`${BFCL_METRIC_PREFIX}${c}/trials`] = t.trials;
    if (t.notScored > 0) m[`${BFCL_METRIC_PREFIX}${c}/not_scored`] = t.notScored;
  }
  const results = categoryResults(tallies);
  if (Object.keys(results).length === 0) return m;
  const row = paperRow(results);
  for (const col of row.columns) if (col.value !== null) m[`${BFCL_METRIC_PREFIX}summary/${SUMMARY_NAMES[col.key]}`] = col.value;
  // Agentic = mean(web search, memory), upstream's; only where both ran.
  const web = row.columns.find((c) => c.key === "web")?.value;
  const memory = row.columns.find((c) => c.key === "memory")?.value;
  if (web != null && memory != null) m[`${BFCL_METRIC_PREFIX}summary/agentic`] = row.summary.agentic.overall.accuracy;
  // Relevance is shown by upstream but belongs to no paper column.
  if (results.live_relevance) m[`${BFCL_METRIC_PREFIX}summary/relevance`] = results.live_relevance.accuracy;
  return m;
}

/** Log lines of an evaluation: the paper's columns, then per-category scores, then each failing trial's check. */
export function bfclEvalReport(trajectories: readonly TrajectoryResult[], maxLines = 200): { headline: string; lines: string[] } {
  const tallies = tallyByCategory(trajectories);
  const results = categoryResults(tallies);
  const pct = (x: number) => `${(100 * x).toFixed(2)}`;
  const row = Object.keys(results).length ? paperRow(results) : null;
  const headline = row
    ? `BFCL ${row.columns.map((c) => `${c.label} ${c.value !== null ? pct(c.value) : c.partial !== undefined ? `(${pct(c.partial)} partial)` : "not run"}`).join(", ")}`
    : "BFCL: no scored task";
  const lines: string[] = [];
  for (const [c, t] of tallies) {
    lines.push(`${c}: ${t.trials ? `${pct(t.correct / t.trials)} % (${t.correct}/${t.trials} trials of ${t.tasks} tasks)` : "no scored trial"}${t.notScored ? `; ${t.notScored} trial(s) could not be run and are not scored` : ""}`);
  }
  for (const col of row?.columns ?? []) if (col.note && col.value === null) lines.push(`${col.label}: ${col.note}`);
  for (const t of trajectories) {
    if (lines.length >= maxLines) break;
    const o = trajectoryOutcome(t);
    if (o && !(o.scored && o.valid)) lines.push(`${t.instanceId} trial ${t.rolloutIndex}: ${describeBfclCheck(o)}`);
  }
  return { headline, lines };
}
