/**
 * Report exports: Markdown, CSV, LaTeX and JSON, all from the same ReportDocument. Pure functions;
 * each escapes for its own format: Markdown escapes what the app escapes (markdown-safe.ts: users' text
 * as literal text, raw HTML in notes as text, links to http(s) and mailto only), CSV quotes and
 * neutralises formulas, LaTeX escapes its specials.
 */
import { chartSvg } from "./chart-svg";
import { leftOutText, metricLabels, type ReportChart, type ReportDocument, type ResultCell, type ResultTable } from "./document";
import { embedCaption, findEmbeds, reportLayout, resolveChart, resolveTable } from "./embeds";
import { testTimeCsvRows, testTimeLatex, testTimeMarkdown } from "./test-time";
import { bfclCsvRows, bfclLatex, bfclMarkdown } from "./bfcl";
import { tau2CsvRows, tau2Latex, tau2Markdown } from "./tau2";
import { vitaCsvRows, vitaLatex, vitaMarkdown } from "./vitabench";
import { table1CsvRows, TABLE1_CSV_HEADER, table1Latex, table1Markdown } from "./table1";
import { FINMCP_CSV_HEADER, finmcpCsvRows, finmcpLatex, finmcpMarkdown } from "./finmcp";
import { OVERALL, PARTIAL_OVERALL_MARK, marksAsData, overallMark, resultMarks, type ResultMetric } from "./marks";
import { applyEdits, mdText, safeNotesEdits, type Edit } from "./markdown-safe";

export type ExportFormat = "markdown" | "csv" | "latex" | "json";

export const exportFormats: { format: ExportFormat; label: string; extension: string; mime: string }[] = [
  { format: "markdown", label: "Markdown", extension: "md", mime: "text/markdown" },
  { format: "csv", label: "CSV", extension: "csv", mime: "text/csv" },
  { format: "latex", label: "LaTeX", extension: "tex", mime: "application/x-tex" },
  { format: "json", label: "JSON", extension: "json", mime: "application/json" },
];

const fmt = (x: number | undefined | null) => (x == null || !Number.isFinite(x) ? "" : x.toFixed(2));
const valueOf = (row: ResultTable["rows"][number], col: string, which: ResultMetric) => (col === OVERALL ? row.overall?.[which] : row.cells[col]?.[which]);
/** A cell's spread over independent passes (`repeats`), where it has one. */
const repeatsOf = (row: ResultTable["rows"][number], col: string) => (col === OVERALL ? row.overall?.repeats : row.cells[col]?.repeats);
/** What a table of independent passes adds below itself. */
const REPEATS_NOTE = "A run of k independent passes shows Avg as the mean over its passes ± their standard deviation (min–max and n in the CSV).";
const hasRepeats = (table: ResultTable) => table.rows.some((r) => Object.values(r.cells).some((c) => c?.repeats));

/** A file name from the report title: lower-case letters, digits and dashes. */
export function exportFileName(doc: ReportDocument, format: ExportFormat): string {
  const base = doc.title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "report";
  return `${base}.${exportFormats.find((f) => f.format === format)!.extension}`;
}

/** A table cell of users' text (run names, benchmark names): literal, one line, pipes escaped. */
const mdCell = mdText;

/**
 * The paper-layout result table as a GFM table, with the app's marks (lib/reports/marks.ts): the best
 * value of a column in bold, — where a run has no value, † on an Overall over fewer columns (footnote).
 */
function markdownTable(table: ResultTable): string[] {
  const { avg, pass } = metricLabels(table);
  const marks = resultMarks(table);
  const cols = [...table.benchmarks, OVERALL];
  const header = ["Run", ...cols.flatMap((b) => [`${b} ${avg}`, `${b} ${pass}`])];
  const lines = [`| ${header.map(mdCell).join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`];
  for (const row of table.rows) {
    const values = cols.flatMap((col) =>
      (["avgAtK", "passAtK"] as const).map((which) => {
        const v = valueOf(row, col, which);
        if (v == null) return "—";
        const r = which === "avgAtK" ? repeatsOf(row, col) : undefined;
        const text = `${fmt(v)}${r ? ` ± ${fmt(r.std)}` : ""}${col === OVERALL ? overallMark(marks, row.runId) : ""}`;
        return marks.isBest(row.runId, col, which) ? `**${text}**` : text;
      }),
    );
    lines.push(`| ${[mdCell(row.runName), ...values].join(" | ")} |`);
  }
  if (marks.footnote) lines.push("", mdCell(marks.footnote));
  if (hasRepeats(table)) lines.push("", REPEATS_NOTE);
  return lines;
}

function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** At most this many rows in a figure's data table (evenly spaced steps, last one included). */
const FIGURE_DATA_ROWS = 12;

/** A chart as a Markdown figure: the SVG image, its caption, and its values per step as a small table. */
function markdownFigure(chart: ReportChart, runOrder: string[], caption: string): string[] {
  const image = `![${mdText(caption.replace(/[[\]]/g, ""))}](data:image/svg+xml;base64,${base64Utf8(chartSvg(chart, runOrder, caption))})`;
  const steps = [...new Set(chart.series.flatMap((s) => s.points.map((p) => p.step)))].sort((a, b) => a - b);
  const every = Math.max(1, Math.ceil(steps.length / FIGURE_DATA_ROWS));
  const shown = steps.filter((_, i) => i % every === 0 || i === steps.length - 1);
  const lines = [image, "", `*${mdText(caption)}*`];
  if (shown.length && chart.series.length) {
    lines.push("", `| step | ${chart.series.map((s) => mdCell(s.runName)).join(" | ")} |`, `| ---: |${chart.series.map(() => " ---: ").join("|")}|`);
    for (const step of shown) {
      const values = chart.series.map((s) => {
        const p = s.points.find((q) => q.step === step);
        return p ? String(Number(p.value.toPrecision(4))) : "";
      });
      lines.push(`| ${step} | ${values.join(" | ")} |`);
    }
  }
  return lines;
}

/**
 * The notes made safe (markdown-safe.ts), with each envace-chart / envace-table block replaced by the
 * figure or table it stands for. Embeds are code blocks, which the safety edits never touch, so the two
 * sets of edits never overlap.
 */
function expandNotes(doc: ReportDocument): string {
  const notes = doc.notes.replace(/\r\n?/g, "\n");
  const order = doc.runs.map((r) => r.id);
  const edits: Edit[] = safeNotesEdits(notes);
  for (const block of findEmbeds(notes)) {
    const e = block.embed;
    let text: string;
    if (e.kind === "error") text = `> ${mdText(`${e.language}: ${e.message}`)}`;
    else {
      const caption = embedCaption(e);
      if (e.kind === "chart") {
        const resolved = resolveChart(doc, e);
        text = "error" in resolved ? `> ${mdText(`${caption}: ${resolved.error}`)}` : markdownFigure(resolved.chart, order, caption).join("\n");
      } else {
        const resolved = resolveTable(doc, e);
        text = "error" in resolved ? `> ${mdText(`${caption}: ${resolved.error}`)}` : [...markdownTable(resolved.table), "", `*${mdText(caption)}*`].join("\n");
      }
    }
    edits.push({ start: block.start, end: block.end, text });
  }
  return applyEdits(notes, edits.sort((a, b) => a.start - b.start)).trim();
}

/**
 * The report as Markdown, laid out as the app shows it (reportLayout): GFM tables and $math$ in the notes
 * pass through as written; embedded figures become SVG images with their data, embedded tables GFM tables.
 */
export function toMarkdown(doc: ReportDocument): string {
  const layout = reportLayout(doc);
  const order = doc.runs.map((r) => r.id);
  const lines = [`# ${mdText(doc.title)}`, ""];
  lines.push(doc.frozenAt ? `Snapshot frozen at ${doc.frozenAt}.` : `Live results computed at ${doc.generatedAt}.`, "");
  const notes = doc.notes.trim() ? expandNotes(doc) : "";
  if (layout.notesFirst && notes) lines.push(notes, "");
  if (layout.showTable) lines.push(...(layout.notesFirst ? ["## Results", ""] : []), ...markdownTable(doc.table), "", ...leftOutMarkdown(doc.table));
  if (doc.table1) lines.push(...table1Markdown(doc.table1), "");
  if (doc.finmcp) lines.push(...finmcpMarkdown(doc.finmcp), "");
  if (doc.testTime) lines.push(...testTimeMarkdown(doc.testTime), "");
  if (doc.bfcl) lines.push(...bfclMarkdown(doc.bfcl), "");
  if (doc.tau2) lines.push(...tau2Markdown(doc.tau2), "");
  if (doc.vitabench) lines.push(...vitaMarkdown(doc.vitabench), "");
  if (layout.charts.length) {
    lines.push("## Charts", "");
    for (const chart of layout.charts) lines.push(...markdownFigure(chart, order, chart.key), "");
  }
  if (!layout.notesFirst && notes) lines.push("## Notes", "", notes, "");
  return `${lines.join("\n").trimEnd()}\n`;
}

/** What the result table left out: each run's errored episodes, per cause (an empty list when none). */
export function leftOutMarkdown(table: ReportDocument["table"]): string[] {
  return (table.leftOut ?? []).map((l) => `*${mdText(`${l.runName}: ${leftOutText(l)}`)}*`).concat(table.leftOut?.length ? [""] : []);
}

function csvField(text: string): string {
  // A leading = + - @ is neutralised so spreadsheets do not evaluate the cell as a formula (a plain negative number is no formula).
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The CSV header of the result rows (the BFCL columns share it). */
export const CSV_HEADER = ["run", "benchmark", "k", "instances", "avg_at_k", "pass_at_k", "partial_avg_at_k", "best", "note"];

/**
 * One row per (run, benchmark) plus an Overall row per run, then the paper's BFCL columns in the same
 * layout: easy to load into pandas or a spreadsheet. The app's marks are columns: `best` names the
 * metrics that are bold, `note` says what an Overall over fewer columns covers and why a BFCL column has
 * no value (its mean over the parts that ran is `partial_avg_at_k`).
 */
export function toCsv(doc: ReportDocument): string {
  const lines = [CSV_HEADER.join(",")];
  const marks = resultMarks(doc.table);
  const best = (runId: string, col: string) => (["avgAtK", "passAtK"] as const).filter((w) => marks.isBest(runId, col, w)).map((w) => (w === "avgAtK" ? "avg_at_k" : "pass_at_k")).join(" ");
  for (const row of doc.table.rows) {
    for (const b of doc.table.benchmarks) {
      const c = row.cells[b];
      if (!c) continue;
      lines.push([csvField(row.runName), csvField(b), String(c.k), String(c.instances), fmt(c.avgAtK), fmt(c.passAtK), "", best(row.runId, b), ""].join(","));
    }
    if (row.overall) {
      const partial = marks.partialOverall.find((p) => p.runId === row.runId);
      const note = partial ? `${PARTIAL_OVERALL_MARK} over ${partial.covers.join(", ")} only (no ${partial.missing.join(", ")}); not comparable with a full Overall` : "";
      lines.push([csvField(row.runName), OVERALL, "", "", fmt(row.overall.avgAtK), fmt(row.overall.passAtK), "", best(row.runId, OVERALL), csvField(note)].join(","));
    }
  }
  // The paper's BFCL columns, in the rows' layout (Avg@k in percent; a column not run has no value, its partial mean and why).
  for (const r of doc.bfcl ? bfclCsvRows(doc.bfcl) : []) lines.push(r.map(csvField).join(","));
  // The paper's τ² group in the same layout (a domain not run has no value and says so).
  for (const r of doc.tau2 ? tau2CsvRows(doc.tau2) : []) lines.push(r.map(csvField).join(","));
  // Table 1's VitaBench group, in the same layout (a row per policy and language; a domain not run has no value and why).
  for (const r of doc.vitabench ? vitaCsvRows(doc.vitabench) : []) lines.push(r.map(csvField).join(","));
  if (hasRepeats(doc.table)) {
    // Runs of independent passes: their avg_at_k above is the mean over the passes; the spread follows as its own block.
    lines.push("", ["run", "benchmark", "passes", "instances", "avg_mean", "avg_std", "avg_min", "avg_max"].join(","));
    const spreadLine = (run: string, b: string, r: NonNullable<ResultCell["repeats"]>, instances: string) =>
      [csvField(run), csvField(b), String(r.passes), instances, fmt(r.mean), fmt(r.std), fmt(r.min), fmt(r.max)].join(",");
    for (const row of doc.table.rows) {
      for (const b of doc.table.benchmarks) {
        const c = row.cells[b];
        if (c?.repeats) lines.push(spreadLine(row.runName, b, c.repeats, String(c.instances)));
      }
      if (row.overall?.repeats) lines.push(spreadLine(row.runName, "Overall", row.overall.repeats, ""));
    }
  }
  if (doc.table1) {
    // Table 1 follows as its own block: a line per evaluated policy, every column with its mark, the provenance as columns.
    lines.push("", TABLE1_CSV_HEADER.join(","));
    for (const r of table1CsvRows(doc.table1)) lines.push(r.map(csvField).join(","));
  }
  if (doc.finmcp) {
    // Table 2 (FinMCP-Bench): a line per run's overall block, then one per group block; `replay` says how the tools were answered.
    lines.push("", FINMCP_CSV_HEADER.join(","));
    for (const r of finmcpCsvRows(doc.finmcp)) lines.push(r.map(csvField).join(","));
  }
  if (doc.testTime) {
    // Table 3 follows as its own block: setting, benchmark, k, instances, Avg@k, n (episodes that ran), errored, its 95 % interval.
    lines.push("", ["test_time_setting", "benchmark", "k", "instances", "avg_at_k", "n", "errored", "ci95_low", "ci95_high"].join(","));
    for (const r of testTimeCsvRows(doc.testTime)) lines.push(r.map(csvField).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

const latexSpecials: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "&": "\\&",
  "%": "\\%",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "{": "\\{",
  "}": "\\}",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
};

export function latexEscape(text: string): string {
  return text.replace(/[\\&%$#_{}~^]/g, (ch) => latexSpecials[ch]!).replace(/\r?\n/g, " ");
}

/**
 * A booktabs table in the paper's layout: a column pair (Avg@k, pass@k) per benchmark, then Overall;
 * the app's marks: the best value of a column (among two or more) in bold, -- where a run has no value,
 * \dag on an Overall over fewer columns with its footnote below the table.
 */
export function toLatex(doc: ReportDocument): string {
  const { avg, pass } = metricLabels(doc.table);
  const marks = resultMarks(doc.table);
  const cols = [...doc.table.benchmarks, OVERALL];
  const out = [
    "% Generated by EnvACE Studio. Needs \\usepackage{booktabs}.",
    "\\begin{table}[t]",
    "\\centering",
    `\\caption{${latexEscape(doc.title)}}`,
    `\\begin{tabular}{l${"rr".repeat(cols.length)}}`,
    "\\toprule",
    ` & ${cols.map((c) => `\\multicolumn{2}{c}{${latexEscape(c)}}`).join(" & ")} \\\\`,
    cols.map((_, i) => `\\cmidrule(lr){${2 + 2 * i}-${3 + 2 * i}}`).join(" "),
    `Run & ${cols.map(() => `${latexEscape(avg)} & ${latexEscape(pass)}`).join(" & ")} \\\\`,
    "\\midrule",
  ];
  for (const row of doc.table.rows) {
    const values = cols.flatMap((col) =>
      (["avgAtK", "passAtK"] as const).map((which) => {
        const v = valueOf(row, col, which);
        if (v == null) return "--";
        const text = marks.isBest(row.runId, col, which) ? `\\textbf{${fmt(v)}}` : fmt(v);
        const r = which === "avgAtK" ? repeatsOf(row, col) : undefined;
        const spread = r ? `{\\scriptsize$\\pm$${fmt(r.std)}}` : "";
        return col === OVERALL && overallMark(marks, row.runId) ? `${text}${spread}\\textsuperscript{\\dag}` : `${text}${spread}`;
      }),
    );
    out.push(`${latexEscape(row.runName)} & ${values.join(" & ")} \\\\`);
  }
  out.push("\\bottomrule", "\\end{tabular}");
  if (marks.footnote) out.push("\\par\\smallskip{\\footnotesize \\dag{} " + latexEscape(marks.footnote.slice(PARTIAL_OVERALL_MARK.length).trim()) + "}");
  out.push("\\end{table}");
  if (doc.table1) out.push("", ...table1Latex(doc.table1, latexEscape));
  if (doc.finmcp) out.push("", ...finmcpLatex(doc.finmcp, latexEscape));
  if (doc.testTime) out.push("", ...testTimeLatex(doc.testTime));
  if (doc.bfcl) out.push("", ...bfclLatex(doc.bfcl, latexEscape));
  if (doc.tau2) out.push("", ...tau2Latex(doc.tau2, latexEscape));
  if (doc.vitabench) out.push("", ...vitaLatex(doc.vitabench, latexEscape));
  return `${out.join("\n")}\n`;
}

/** The whole document, plus the marks the app shows on its result table (lib/reports/marks.ts). */
export function toJson(doc: ReportDocument): string {
  return `${JSON.stringify({ format: "envace-report/v1", ...doc, marks: { table: marksAsData(doc.table) } }, null, 2)}\n`;
}

export function exportReport(doc: ReportDocument, format: ExportFormat): string {
  switch (format) {
    case "markdown":
      return toMarkdown(doc);
    case "csv":
      return toCsv(doc);
    case "latex":
      return toLatex(doc);
    case "json":
      return toJson(doc);
  }
}
