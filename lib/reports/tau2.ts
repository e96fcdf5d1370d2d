/**
 * A report's τ²-Bench block: the paper's τ² group — Retail, Telecom, Airline and Avg (their mean) — one row
 * per run, from the per-domain metrics a τ² evaluation stores (`val/tau2/<domain>/avg|tasks|trials|errored`,
 * worker/envs/tau2/harness/metrics.ts: Avg@k over the trials that ran). A domain the run did not evaluate
 * shows "—" (never 0), and Avg then has no value either (it is the mean of the three), with a note saying
 * which. Pure: the reports service feeds it metric points, the page and the exports render it.
 */
import { TAU2_DOMAIN_LABELS, type Tau2Domain } from "../tau2/datasets";
import type { MetricPointRow } from "./bfcl";
import { mdText } from "./markdown-safe";

export const TAU2_METRIC_PREFIX = "val/tau2/";
/** The paper's column order. */
export const TAU2_REPORT_DOMAINS: Tau2Domain[] = ["retail", "telecom", "airline"];

export interface Tau2Cell {
  /** Avg@k in percent. */
  value: number;
  tasks: number;
  trials: number;
  /** Trials whose episode could not run (not in `trials`). */
  notScored: number;
}

export interface Tau2Row {
  runId: string;
  runName: string;
  /** The evaluation step the row comes from. */
  step: number;
  cells: Record<Tau2Domain, Tau2Cell | null>;
  /** The mean of the three domains in percent; null unless all three ran. */
  avg: number | null;
  notes: string[];
}

export interface Tau2Table {
  columns: { key: Tau2Domain | "avg"; label: string }[];
  rows: Tau2Row[];
}

const pct = (x: number) => Math.round(x * 10_000) / 100;

/** The row of one run from its τ² metric points at one step, or null when it evaluated no domain. */
export function tau2Row(run: { id: string; name: string }, step: number, metrics: Record<string, number>): Tau2Row | null {
  const cells = {} as Record<Tau2Domain, Tau2Cell | null>;
  const notes: string[] = [];
  for (const d of TAU2_REPORT_DOMAINS) {
    const avg = metrics[`${TAU2_METRIC_PREFIX}${d}/avg`];
    const notScored = metrics[`${TAU2_METRIC_PREFIX}${d}/errored`] ?? 0;
    cells[d] = avg === undefined ? null : { value: pct(avg), tasks: metrics[`${TAU2_METRIC_PREFIX}${d}/tasks`] ?? 0, trials: metrics[`${TAU2_METRIC_PREFIX}${d}/trials`] ?? 0, notScored };
    if (notScored > 0) notes.push(`${TAU2_DOMAIN_LABELS[d]}: ${notScored} trial(s) errored (could not be run) and are left out`);
  }
  const ran = TAU2_REPORT_DOMAINS.filter((d) => cells[d] !== null);
  if (ran.length === 0) return null;
  const missing = TAU2_REPORT_DOMAINS.filter((d) => cells[d] === null);
  if (missing.length) notes.unshift(`${missing.map((d) => TAU2_DOMAIN_LABELS[d]).join(", ")} not run: Avg needs all three domains`);
  const avg = missing.length ? null : Math.round((100 * ran.reduce((s, d) => s + cells[d]!.value, 0)) / ran.length) / 100;
  return { runId: run.id, runName: run.name, step, cells, avg, notes };
}

/** The τ² block of a report: one row per run that has a τ² evaluation (its latest), or null when none has. */
export function buildTau2Table(runs: { id: string; name: string }[], points: readonly MetricPointRow[]): Tau2Table | null {
  const rows: Tau2Row[] = [];
  const perDomain = /^val\/tau2\/(retail|telecom|airline)\/avg$/;
  for (const run of runs) {
    const mine = points.filter((p) => p.runId === run.id && p.key.startsWith(TAU2_METRIC_PREFIX));
    const steps = mine.filter((p) => perDomain.test(p.key)).map((p) => p.step);
    if (steps.length === 0) continue;
    const step = Math.max(...steps);
    const row = tau2Row(run, step, Object.fromEntries(mine.filter((p) => p.step === step).map((p) => [p.key, p.value])));
    if (row) rows.push(row);
  }
  if (rows.length === 0) return null;
  return { columns: [...TAU2_REPORT_DOMAINS.map((d) => ({ key: d, label: TAU2_DOMAIN_LABELS[d] })), { key: "avg" as const, label: "Avg" }], rows };
}

/** A cell as the table shows it: the value, or "—" where the domain (or, for Avg, one of them) was not run. */
export function tau2CellText(row: Tau2Row, key: Tau2Domain | "avg"): string {
  const v = key === "avg" ? row.avg : (row.cells[key]?.value ?? null);
  return v === null ? "—" : v.toFixed(2);
}

/** Run names are users' text: literal inline Markdown, as the rest of the export (markdown-safe.ts). */
const mdCell = mdText;

/** The block as Markdown: the table, then the notes per run. */
export function tau2Markdown(table: Tau2Table): string[] {
  const header = ["Run", ...table.columns.map((c) => c.label)];
  const lines = ["## τ²-Bench", "", `| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`];
  for (const row of table.rows) lines.push(`| ${[mdCell(row.runName), ...table.columns.map((c) => tau2CellText(row, c.key))].join(" | ")} |`);
  lines.push("", "Success rate in percent (Avg@k over each task's trials); Avg is the mean of the three domains; — marks a domain not run.");
  for (const row of table.rows) {
    if (!row.notes.length) continue;
    lines.push("", `${mdCell(row.runName)}:`, ...row.notes.map((n) => `- ${mdText(n)}`));
  }
  return lines;
}

/** CSV rows in the result rows' layout (run, "τ² <column>", k, instances, avg_at_k, pass_at_k, partial_avg_at_k, best, note). */
export function tau2CsvRows(table: Tau2Table): string[][] {
  return table.rows.flatMap((row) =>
    table.columns.map((c) => {
      const cell = c.key === "avg" ? null : row.cells[c.key];
      const text = tau2CellText(row, c.key);
      const note = c.key === "avg" ? (row.avg === null ? (row.notes[0] ?? "") : "") : cell ? "" : `${c.label} not run`;
      return [row.runName, `τ² ${c.label}`, "", cell ? String(cell.tasks) : "", text === "—" ? "" : text, "", "", "", note];
    }),
  );
}

/** The block as a booktabs table; `escape` is the export's LaTeX escaping (τ² is set in math). */
export function tau2Latex(table: Tau2Table, escape: (text: string) => string): string[] {
  const notes = table.rows.filter((r) => r.notes.length > 0).map((r) => `\\textit{${escape(r.runName)}}: ${r.notes.map(escape).join("; ")}.`);
  return [
    "\\begin{table}[t]",
    "\\centering",
    "\\caption{$\\tau^2$-Bench (success rate in percent; Avg is the mean of the three domains; -- marks a domain not run)}",
    `\\begin{tabular}{l${"r".repeat(table.columns.length)}}`,
    "\\toprule",
    `Run & ${table.columns.map((c) => escape(c.label)).join(" & ")} \\\\`,
    "\\midrule",
    ...table.rows.map((row) => `${escape(row.runName)} & ${table.columns.map((c) => tau2CellText(row, c.key).replace("—", "--")).join(" & ")} \\\\`),
    "\\bottomrule",
    "\\end{tabular}",
    ...(notes.length ? [`\\par\\smallskip{\\footnotesize ${notes.join(" ")}}`] : []),
    "\\end{table}",
  ];
}
