/**
 * Report exports: Markdown, CSV, LaTeX and JSON, all from the same ReportDocument. Pure functions;
 * each escapes for its own format (pipes in Markdown tables, quotes in CSV, specials in LaTeX).
 */
import { metricLabels, type ReportDocument, type ResultCell } from "./document";
import { testTimeCsvRows, testTimeLatex, testTimeMarkdown } from "./test-time";

export type ExportFormat = "markdown" | "csv" | "latex" | "json";

export const exportFormats: { format: ExportFormat; label: string; extension: string; mime: string }[] = [
  { format: "markdown", label: "Markdown", extension: "md", mime: "text/markdown" },
  { format: "csv", label: "CSV", extension: "csv", mime: "text/csv" },
  { format: "latex", label: "LaTeX", extension: "tex", mime: "application/x-tex" },
  { format: "json", label: "JSON", extension: "json", mime: "application/json" },
];

const fmt = (x: number | undefined | null) => (x == null || !Number.isFinite(x) ? "" : x.toFixed(2));
const cellValue = (c: ResultCell | null | undefined, which: "avgAtK" | "passAtK") => (c ? fmt(c[which]) : "");

/** A file name from the report title: lower-case letters, digits and dashes. */
export function exportFileName(doc: ReportDocument, format: ExportFormat): string {
  const base = doc.title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "report";
  return `${base}.${exportFormats.find((f) => f.format === format)!.extension}`;
}

function mdCell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

export function toMarkdown(doc: ReportDocument): string {
  const { avg, pass } = metricLabels(doc.table);
  const cols = [...doc.table.benchmarks, "Overall"];
  const header = ["Run", ...cols.flatMap((b) => [`${b} ${avg}`, `${b} ${pass}`])];
  const lines = [`# ${doc.title.replace(/\r?\n/g, " ")}`, ""];
  lines.push(doc.frozenAt ? `Snapshot frozen at ${doc.frozenAt}.` : `Live results computed at ${doc.generatedAt}.`, "");
  lines.push(`| ${header.map(mdCell).join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`);
  for (const row of doc.table.rows) {
    const values = [
      ...doc.table.benchmarks.flatMap((b) => [cellValue(row.cells[b], "avgAtK"), cellValue(row.cells[b], "passAtK")]),
      fmt(row.overall?.avgAtK),
      fmt(row.overall?.passAtK),
    ];
    lines.push(`| ${[mdCell(row.runName), ...values].join(" | ")} |`);
  }
  if (doc.testTime) lines.push("", ...testTimeMarkdown(doc.testTime));
  if (doc.notes.trim()) lines.push("", "## Notes", "", doc.notes.trim());
  return `${lines.join("\n")}\n`;
}

function csvField(text: string): string {
  // A leading = + - @ is neutralised so spreadsheets do not evaluate the cell as a formula.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One row per (run, benchmark) plus an Overall row per run: easy to load into pandas or a spreadsheet. */
export function toCsv(doc: ReportDocument): string {
  const lines = [["run", "benchmark", "k", "instances", "avg_at_k", "pass_at_k"].join(",")];
  for (const row of doc.table.rows) {
    for (const b of doc.table.benchmarks) {
      const c = row.cells[b];
      if (!c) continue;
      lines.push([csvField(row.runName), csvField(b), String(c.k), String(c.instances), fmt(c.avgAtK), fmt(c.passAtK)].join(","));
    }
    if (row.overall) lines.push([csvField(row.runName), "Overall", "", "", fmt(row.overall.avgAtK), fmt(row.overall.passAtK)].join(","));
  }
  if (doc.testTime) {
    // Table 3 follows as its own block: setting, benchmark, k, instances, Avg@k.
    lines.push("", ["test_time_setting", "benchmark", "k", "instances", "avg_at_k"].join(","));
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

/** A booktabs table in the paper's layout: a column pair (Avg@k, pass@k) per benchmark, then Overall; best value in bold. */
export function toLatex(doc: ReportDocument): string {
  const { avg, pass } = metricLabels(doc.table);
  const cols = [...doc.table.benchmarks, "Overall"];
  const best = new Map<string, number>();
  const valueOf = (row: ReportDocument["table"]["rows"][number], col: string, which: "avgAtK" | "passAtK") =>
    col === "Overall" ? row.overall?.[which] : row.cells[col]?.[which];
  for (const col of cols)
    for (const which of ["avgAtK", "passAtK"] as const)
      for (const row of doc.table.rows) {
        const v = valueOf(row, col, which);
        if (v != null && v > (best.get(`${col}:${which}`) ?? -Infinity)) best.set(`${col}:${which}`, v);
      }
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
        return v === best.get(`${col}:${which}`) && doc.table.rows.length > 1 ? `\\textbf{${fmt(v)}}` : fmt(v);
      }),
    );
    out.push(`${latexEscape(row.runName)} & ${values.join(" & ")} \\\\`);
  }
  out.push("\\bottomrule", "\\end{tabular}", "\\end{table}");
  if (doc.testTime) out.push("", ...testTimeLatex(doc.testTime));
  return `${out.join("\n")}\n`;
}

export function toJson(doc: ReportDocument): string {
  return `${JSON.stringify({ format: "envace-report/v1", ...doc }, null, 2)}\n`;
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
