/**
 * The EnvACE paper's BFCL V4 columns — Web, Memory, Multi-turn, Non-live, Live, Irrelevance, Avg — from
 * upstream's summary. Each column is upstream's own number (Web Search Acc, Memory Acc, Multi Turn Acc,
 * Non-Live AST Acc, Live Acc, Irrelevance Detection, Overall Acc). A column with a category that was not run
 * has no value (never 0): it carries a note naming the categories and why, and, where some of its parts did
 * run, the same mean over those parts (`partial`, clearly not the paper's number).
 *
 * Avg is upstream's Overall (weights 10/10/10/30/40); the paper does not say whether its Avg is that or the
 * plain mean of its six columns, so `meanOfColumns` is given too. Both exist only when every part ran.
 */
import { aggregateBfcl, BFCL_V4_ENTRY_COUNTS, type BfclSummary, type CategoryResult, type ScoringCategory } from "./aggregate";
import { NOT_RUN_REASONS, isNotRunCategory } from "./not-run";

export const PAPER_COLUMNS = ["web", "memory", "multiTurn", "nonLive", "live", "irrelevance", "avg"] as const;
export type PaperColumnKey = (typeof PAPER_COLUMNS)[number];

export const PAPER_COLUMN_LABELS: Record<PaperColumnKey, string> = {
  web: "Web",
  memory: "Memory",
  multiTurn: "Multi-turn",
  nonLive: "Non-live",
  live: "Live",
  irrelevance: "Irrelevance",
  avg: "Avg",
};

/** The categories each column is made of. */
export const PAPER_COLUMN_CATEGORIES: Record<Exclude<PaperColumnKey, "avg">, ScoringCategory[]> = {
  web: ["web_search_base", "web_search_no_snippet"],
  memory: ["memory_kv", "memory_vector", "memory_rec_sum"],
  multiTurn: ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"],
  nonLive: ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple"],
  live: ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"],
  irrelevance: ["irrelevance", "live_irrelevance"],
};

export interface NotRunPart {
  category: ScoringCategory;
  reason: string;
}

export interface PaperColumn {
  key: PaperColumnKey;
  label: string;
  /** Accuracy in [0, 1] when every part ran; null otherwise. */
  value: number | null;
  /** Where some parts ran: the column's mean over those parts only (not comparable to the paper). */
  partial?: number;
  notRun: NotRunPart[];
  note?: string;
}

export interface PaperRow {
  columns: PaperColumn[];
  /** Plain mean of the six columns (the other reading of the paper's Avg); null unless all have values. */
  meanOfColumns: number | null;
  summary: BfclSummary;
}

const reasonFor = (c: ScoringCategory): string => (isNotRunCategory(c) ? NOT_RUN_REASONS[c] : "not evaluated in this run");

function columnValue(summary: BfclSummary, key: Exclude<PaperColumnKey, "avg">): number {
  switch (key) {
    case "web":
      return summary.agentic.webSearch.accuracy;
    case "memory":
      return summary.agentic.memory.accuracy;
    case "multiTurn":
      return summary.multiTurn.overall.accuracy;
    case "nonLive":
      return summary.nonLive.astSummary.accuracy;
    case "live":
      return summary.live.overall.accuracy;
    case "irrelevance":
      return summary.irrelevance.accuracy;
  }
}

/**
 * The column's mean over the parts that ran, with upstream's formula for that column (non-live keeps the
 * simple sub-mean of the languages that ran; live stays weighted by entry counts).
 */
function partialValue(key: Exclude<PaperColumnKey, "avg">, results: Partial<Record<ScoringCategory, CategoryResult>>): number | undefined {
  const ran = PAPER_COLUMN_CATEGORIES[key].filter((c) => results[c]);
  if (ran.length === 0) return undefined;
  const acc = (c: ScoringCategory) => results[c]!.accuracy;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  if (key === "live") {
    const total = ran.reduce((n, c) => n + results[c]!.totalCount, 0);
    return ran.reduce((s, c) => s + acc(c) * results[c]!.totalCount, 0) / total;
  }
  if (key === "nonLive") {
    const simple = (["simple_python", "simple_java", "simple_javascript"] as ScoringCategory[]).filter((c) => results[c]);
    const parts = [...(simple.length ? [mean(simple.map(acc))] : []), ...(["multiple", "parallel", "parallel_multiple"] as ScoringCategory[]).filter((c) => results[c]).map(acc)];
    return mean(parts);
  }
  return mean(ran.map(acc));
}

/** The paper's BFCL columns from per-category results. */
export function paperRow(
  results: Partial<Record<ScoringCategory, CategoryResult>>,
  entryCounts: Record<ScoringCategory, number> = BFCL_V4_ENTRY_COUNTS,
): PaperRow {
  const summary = aggregateBfcl(results, entryCounts);
  const columns: PaperColumn[] = [];
  const allMissing: NotRunPart[] = [];
  for (const key of PAPER_COLUMNS) {
    if (key === "avg") continue;
    const notRun = PAPER_COLUMN_CATEGORIES[key].filter((c) => !results[c]).map((c) => ({ category: c, reason: reasonFor(c) }));
    allMissing.push(...notRun);
    const complete = notRun.length === 0;
    const column: PaperColumn = { key, label: PAPER_COLUMN_LABELS[key], value: complete ? columnValue(summary, key) : null, notRun };
    if (!complete) {
      const partial = partialValue(key, results);
      if (partial !== undefined) column.partial = partial;
      column.note = `not run: ${notRun.map((p) => `${p.category} (${p.reason})`).join("; ")}` + (partial !== undefined ? "; partial = mean over the parts that ran" : "");
    }
    columns.push(column);
  }
  const complete = allMissing.length === 0;
  columns.push({
    key: "avg",
    label: PAPER_COLUMN_LABELS.avg,
    value: complete ? summary.overall.accuracy : null,
    notRun: allMissing,
    note: complete
      ? "upstream's Overall Acc (10 % Non-live, 10 % Live, 10 % Irrelevance, 30 % Multi-turn, 40 % Agentic)"
      : "upstream's Overall Acc needs every category (upstream would count the ones not run as 0); see the columns' notes",
  });
  const six = columns.filter((c) => c.key !== "avg").map((c) => c.value);
  const meanOfColumns = six.every((v): v is number => v !== null) ? six.reduce((a, b) => a + b, 0) / six.length : null;
  return { columns, meanOfColumns, summary };
}
