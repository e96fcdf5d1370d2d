/**
 * A report's BFCL block: the paper's BFCL V4 layout — Web, Memory, Multi-turn, Non-live, Live, Irrelevance,
 * Avg — one row per run, built from the per-category metrics a BFCL evaluation stores
 * (`val/bfcl/<category>/accuracy|tasks|trials|not_scored`, worker/envs/bfcl/run/metrics.ts) with upstream's
 * aggregation (lib/bfcl/paper.ts). A column whose categories did not all run has no value (never 0) and a
 * note saying which and why; categories run on a subset of their tasks and trials that could not be run are
 * noted too. Pure: the reports service feeds it metric points, the page and the exports render it.
 */
import { BFCL_V4_ENTRY_COUNTS, isScoringCategory, type CategoryResult, type ScoringCategory } from "../bfcl/aggregate";
import { mdText } from "./markdown-safe";
import { PAPER_COLUMN_CATEGORIES, PAPER_COLUMN_LABELS, PAPER_COLUMNS, paperRow, type PaperColumnKey } from "../bfcl/paper";

export const BFCL_METRIC_PREFIX = "val/bfcl/";

export interface BfclCategoryCell {
  category: string;
  /** Avg@k in percent over the scored trials. */
  accuracy: number | null;
  tasks: number;
  trials: number;
  notScored: number;
  /** The category's size in BFCL v4 (a run may evaluate a subset). */
  of: number;
}

export interface BfclColumnCell {
  key: PaperColumnKey;
  label: string;
  /** Percent; null when a part of the column was not run. */
  value: number | null;
  /** Mean over the parts that ran (percent), when some did: not comparable to the paper. */
  partial: number | null;
  note: string | null;
}

export interface BfclRow {
  runId: string;
  runName: string;
  /** The evaluation step the row comes from. */
  step: number;
  columns: BfclColumnCell[];
  categories: BfclCategoryCell[];
  /** Why columns have no value, subsets, trials not scored. */
  notes: string[];
}

export interface BfclTable {
  columns: { key: PaperColumnKey; label: string }[];
  rows: BfclRow[];
}

export interface MetricPointRow {
  runId: string;
  key: string;
  step: number;
  value: number;
}

const pct = (x: number) => Math.round(x * 10_000) / 100;

/** The row of one run from its BFCL metric points at one step, or null when it has none. */
export function bfclRow(run: { id: string; name: string }, step: number, metrics: Record<string, number>): BfclRow | null {
  const categories: BfclCategoryCell[] = [];
  const results: Partial<Record<ScoringCategory, CategoryResult>> = {};
  for (const [key, value] of Object.entries(metrics)) {
    const m = /^val\/bfcl\/([a-z_]+)\/tasks$/.exec(key);
    if (!m || !isScoringCategory(m[1])) continue;
    const c = m[1];
    const accuracy = metrics[`${BFCL_METRIC_PREFIX}${c}/accuracy`];
    categories.push({
      category: c,
      accuracy: accuracy === undefined ? null : pct(accuracy),
      tasks: value,
      trials: metrics[`${BFCL_METRIC_PREFIX}${c}/trials`] ?? 0,
      notScored: metrics[`${BFCL_METRIC_PREFIX}${c}/not_scored`] ?? 0,
      of: BFCL_V4_ENTRY_COUNTS[c],
    });
    if (accuracy !== undefined) results[c] = { accuracy, totalCount: value };
  }
  if (categories.length === 0) return null;
  const order = Object.keys(BFCL_V4_ENTRY_COUNTS);
  categories.sort((a, b) => order.indexOf(a.category) - order.indexOf(b.category));
  const paper = paperRow(results);
  const columns = paper.columns.map((c) => ({
    key: c.key,
    label: c.label,
    value: c.value === null ? null : pct(c.value),
    partial: c.partial === undefined ? null : pct(c.partial),
    note: c.value === null ? (c.note ?? null) : null,
  }));
  const notes: string[] = [];
  for (const c of columns) if (c.note && c.key !== "avg") notes.push(`${c.label}: ${c.note}`);
  const subsets = categories.filter((c) => c.tasks < c.of);
  if (subsets.length) notes.push(`Subsets: ${subsets.map((c) => `${c.category} ${c.tasks} of ${c.of} tasks`).join(", ")}`);
  for (const c of categories) if (c.notScored > 0) notes.push(`${c.category}: ${c.notScored} trial(s) could not be run and are not scored`);
  return { runId: run.id, runName: run.name, step, columns, categories, notes };
}

/** The BFCL block of a report: one row per run that has a BFCL evaluation (its latest), or null when none has. */
export function buildBfclTable(runs: { id: string; name: string }[], points: readonly MetricPointRow[]): BfclTable | null {
  const rows: BfclRow[] = [];
  for (const run of runs) {
    const mine = points.filter((p) => p.runId === run.id && p.key.startsWith(BFCL_METRIC_PREFIX));
    if (mine.length === 0) continue;
    const step = Math.max(...mine.map((p) => p.step));
    const row = bfclRow(run, step, Object.fromEntries(mine.filter((p) => p.step === step).map((p) => [p.key, p.value])));
    if (row) rows.push(row);
  }
  if (rows.length === 0) return null;
  return { columns: PAPER_COLUMNS.map((key) => ({ key, label: PAPER_COLUMN_LABELS[key] })), rows };
}

/** A cell as text: the value, or "—" (with the partial mean in brackets) where the column was not run. */
export function bfclCellText(c: BfclColumnCell): string {
  if (c.value !== null) return c.value.toFixed(2);
  return c.partial !== null ? `— (${c.partial.toFixed(2)} partial)` : "—";
}

/** Users' text in the Markdown export, escaped as the app escapes it (markdown-safe.ts). */
const mdCell = mdText;

/** The BFCL block as Markdown: the paper's table, then the notes per run. */
export function bfclMarkdown(table: BfclTable): string[] {
  const header = ["Run", ...table.columns.map((c) => c.label)];
  const lines = ["## BFCL V4", "", `| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`];
  for (const row of table.rows) lines.push(`| ${[mdCell(row.runName), ...row.columns.map((c) => mdCell(bfclCellText(c)))].join(" | ")} |`);
  lines.push("", "Accuracy in percent (Avg@k over the trials of each task). Avg is upstream's Overall Acc; — marks a column not run.");
  for (const row of table.rows) {
    if (!row.notes.length) continue;
    lines.push("", `${mdCell(row.runName)}:`, ...row.notes.map((n) => `- ${mdText(n)}`));
  }
  return lines;
}

/**
 * What the app says about one column of a row: why it has no value (its tooltip), and the row's notes
 * on the column's categories (run on a subset, trials not scored).
 */
export function bfclColumnNotes(row: BfclRow, key: PaperColumnKey): string[] {
  const column = row.columns.find((c) => c.key === key);
  const notes = column?.note ? [column.note] : [];
  if (key === "avg") return notes;
  for (const c of columnCategories(row, key)) {
    if (c.tasks < c.of) notes.push(`subset: ${c.category} ${c.tasks} of ${c.of} tasks`);
    if (c.notScored > 0) notes.push(`${c.category}: ${c.notScored} trial(s) could not be run and are not scored`);
  }
  return notes;
}

/** The row's categories that make up a column (every one for Avg). */
function columnCategories(row: BfclRow, key: PaperColumnKey): BfclCategoryCell[] {
  if (key === "avg") return row.categories;
  const parts: readonly string[] = PAPER_COLUMN_CATEGORIES[key];
  return row.categories.filter((c) => parts.includes(c.category));
}

const two = (x: number | null) => (x === null ? "" : x.toFixed(2));

/**
 * CSV rows in the layout of the result rows (run, "BFCL <column>", k, instances, avg_at_k, pass_at_k,
 * partial_avg_at_k, best, note): the value, or — where a part of the column was not run — its mean over
 * the parts that ran and the note the app shows.
 */
export function bfclCsvRows(table: BfclTable): string[][] {
  return table.rows.flatMap((row) =>
    row.columns.map((c) => {
      const tasks = columnCategories(row, c.key).reduce((n, x) => n + x.tasks, 0);
      return [row.runName, `BFCL ${c.label}`, "", tasks ? String(tasks) : "", two(c.value), "", two(c.partial), "", bfclColumnNotes(row, c.key).join("; ")];
    }),
  );
}

/**
 * The BFCL block as a booktabs table (needs \\usepackage{booktabs}); `escape` is the export's LaTeX
 * escaping. Cells read as in the app — the value, or -- with the partial mean in brackets — and the
 * notes per run follow the table.
 */
export function bfclLatex(table: BfclTable, escape: (text: string) => string): string[] {
  const cell = (c: BfclColumnCell) => (c.value !== null ? c.value.toFixed(2) : c.partial !== null ? `-- (${c.partial.toFixed(2)} partial)` : "--");
  const notes = table.rows.filter((r) => r.notes.length > 0).map((r) => `\\textit{${escape(r.runName)}}: ${r.notes.map(escape).join("; ")}.`);
  return [
    "\\begin{table}[t]",
    "\\centering",
    "\\caption{BFCL V4 (accuracy in percent; -- marks a column not run, with the mean over the parts that ran in brackets)}",
    `\\begin{tabular}{l${"r".repeat(table.columns.length)}}`,
    "\\toprule",
    `Run & ${table.columns.map((c) => escape(c.label)).join(" & ")} \\\\`,
    "\\midrule",
    ...table.rows.map((row) => `${escape(row.runName)} & ${row.columns.map(cell).join(" & ")} \\\\`),
    "\\bottomrule",
    "\\end{tabular}",
    ...(notes.length ? [`\\par\\smallskip{\\footnotesize ${notes.join(" ")}}`] : []),
    "\\end{table}",
  ];
}
