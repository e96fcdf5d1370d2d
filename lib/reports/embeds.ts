/**
 * Figures and tables in report notes, by reference. A fenced block whose language is `envace-chart` or
 * `envace-table` stands for one of the report's charts or its paper-layout result table, rendered from
 * the report's own data (live or frozen) in the app, the share link and the Markdown export alike:
 *
 *     ```envace-chart
 *     metric: reward/mean
 *     runs: 1, 3            (optional: positions in the report's run list, or run names; default all)
 *     caption: Training reward of EnvACE and the baseline   (optional)
 *     ```
 *
 *     ```envace-table
 *     benchmarks: tau2:retail, shop   (optional: which benchmark columns, named as in the results; default all)
 *     caption: Success rates          (optional)
 *     ```
 *
 * Each embed is numbered in order of appearance (Figure 1, 2, … and Table 1, 2, …). One that cannot be
 * shown says why in its place, names what would be valid, and counts for nothing in the layout. Blocks are found with
 * the same Markdown parser (remark + GFM + math) the app renders with, so both agree on what a code
 * block is. Pure: no I/O.
 */
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import remarkParse from "remark-parse";
import { unified } from "unified";
import type { ReportChart, ReportDocument, ResultTable } from "./document";

export const CHART_LANGUAGE = "envace-chart";
export const TABLE_LANGUAGE = "envace-table";

export type Embed =
  | { kind: "chart"; metric: string; runs: string[] | null; caption: string | null; number: number }
  | { kind: "table"; benchmarks: string[] | null; caption: string | null; number: number }
  | { kind: "error"; language: string; message: string };

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkMath);

interface MdNode {
  type: string;
  lang?: string | null;
  value?: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: MdNode[];
}

function codeBlocks(node: MdNode, out: MdNode[] = []): MdNode[] {
  if (node.type === "code") out.push(node);
  for (const child of node.children ?? []) codeBlocks(child, out);
  return out;
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parse one embed block's body (`key: value` lines). `number` is its figure or table number. */
export function parseEmbed(language: string, body: string, number: number): Embed {
  const fields = new Map<string, string>();
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^([A-Za-z]+)\s*:\s*(.*)$/.exec(line);
    if (!m) {
      // A bare word names the metric (charts) or is the table's name (`results`).
      if (language === CHART_LANGUAGE && !fields.has("metric") && !/\s/.test(line)) fields.set("metric", line);
      else if (language === TABLE_LANGUAGE && line === "results") continue;
      else return { kind: "error", language, message: `cannot read "${line}": write key: value lines` };
      continue;
    }
    fields.set(m[1]!.toLowerCase(), m[2]!.trim());
  }
  const allowed = language === CHART_LANGUAGE ? ["metric", "runs", "caption"] : ["benchmarks", "caption"];
  const unknown = [...fields.keys()].find((k) => !allowed.includes(k));
  if (unknown) return { kind: "error", language, message: `unknown key "${unknown}" (known: ${allowed.join(", ")})` };
  const caption = fields.get("caption") || null;
  if (language === CHART_LANGUAGE) {
    const metric = fields.get("metric");
    if (!metric) return { kind: "error", language, message: "needs metric: <key>, e.g. metric: reward/mean" };
    const runs = fields.has("runs") ? list(fields.get("runs")!) : null;
    return { kind: "chart", metric, runs: runs?.length ? runs : null, caption, number };
  }
  const benchmarks = fields.has("benchmarks") ? list(fields.get("benchmarks")!) : null;
  return { kind: "table", benchmarks: benchmarks?.length ? benchmarks : null, caption, number };
}

export interface EmbedBlock {
  /** Offsets of the whole fenced block in the notes. */
  start: number;
  end: number;
  embed: Embed;
}

/** Every embed block of the notes, in order, numbered. */
export function findEmbeds(notes: string): EmbedBlock[] {
  const out: EmbedBlock[] = [];
  let figures = 0;
  let tables = 0;
  for (const block of codeBlocks(parser.parse(notes) as MdNode)) {
    const language = block.lang ?? "";
    if (language !== CHART_LANGUAGE && language !== TABLE_LANGUAGE) continue;
    const number = language === CHART_LANGUAGE ? ++figures : ++tables;
    out.push({ start: block.position!.start.offset!, end: block.position!.end.offset!, embed: parseEmbed(language, block.value ?? "", number) });
  }
  return out;
}

/** The metric keys the notes chart, so a report computes (and freezes) their series. */
export function chartKeysIn(notes: string): string[] {
  return [...new Set(findEmbeds(notes).flatMap((b) => (b.embed.kind === "chart" ? [b.embed.metric] : [])))];
}

/** A name written differently from a valid one (case, `_` for `:` or `/`): "tau2_retail" → "tau2:retail". */
function nearName(name: string, valid: readonly string[]): string | undefined {
  const norm = (x: string) => x.toLowerCase().replace(/[^a-z0-9@^]+/g, "");
  return valid.find((v) => v !== name && norm(v) === norm(name));
}

const didYouMean = (name: string, valid: readonly string[]) => {
  const near = nearName(name, valid);
  return near ? ` — did you mean "${near}"?` : "";
};

/** A chart embed resolved against the document: the series it shows, or why it shows nothing. */
export function resolveChart(doc: ReportDocument, embed: Extract<Embed, { kind: "chart" }>): { chart: ReportChart } | { error: string } {
  const chart = doc.charts.find((c) => c.key === embed.metric);
  if (!chart) {
    const hint = didYouMean(embed.metric, doc.charts.map((c) => c.key));
    return {
      error: doc.frozenAt
        ? `no chart "${embed.metric}" in the frozen snapshot${hint} (refresh the snapshot after adding a chart)`
        : `none of the report's runs has the metric "${embed.metric}"${hint}`,
    };
  }
  if (!embed.runs) return { chart };
  const wanted = new Set<string>();
  for (const ref of embed.runs) {
    const position = /^\d+$/.test(ref) ? Number(ref) : null;
    const run = position != null ? doc.runs[position - 1] : doc.runs.find((r) => r.name === ref);
    if (!run) return { error: `no run "${ref}" in this report (use positions 1–${doc.runs.length} or run names)` };
    wanted.add(run.id);
  }
  return { chart: { ...chart, series: chart.series.filter((s) => wanted.has(s.runId)) } };
}

/** A table embed resolved against the document: the result table restricted to the benchmarks asked for. */
export function resolveTable(doc: ReportDocument, embed: Extract<Embed, { kind: "table" }>): { table: ResultTable } | { error: string } {
  if (!embed.benchmarks) return { table: doc.table };
  const valid = doc.table.benchmarks;
  const missing = embed.benchmarks.filter((b) => !valid.includes(b));
  if (missing.length) {
    const names = missing.map((b) => `"${b}"${didYouMean(b, valid)}`).join(", ");
    return { error: `no benchmark ${names} in the results; the valid benchmarks are ${valid.length ? valid.map((b) => `"${b}"`).join(", ") : "none yet (no run has evaluated trajectories)"}` };
  }
  const keep = new Set(embed.benchmarks);
  const table: ResultTable = {
    ...doc.table,
    benchmarks: doc.table.benchmarks.filter((b) => keep.has(b)),
    rows: doc.table.rows.map((row) => {
      const cells = Object.fromEntries(Object.entries(row.cells).filter(([b]) => keep.has(b)));
      const present = Object.values(cells).filter((c) => c != null);
      const mean = (k: "avgAtK" | "passAtK") => Math.round((present.reduce((s, c) => s + c![k], 0) / present.length) * 100) / 100;
      return { ...row, cells, overall: present.length ? { avgAtK: mean("avgAtK"), passAtK: mean("passAtK") } : null };
    }),
  };
  return { table };
}

export function embedCaption(embed: Exclude<Embed, { kind: "error" }>): string {
  const label = embed.kind === "chart" ? `Figure ${embed.number}` : `Table ${embed.number}`;
  const text = embed.caption ?? (embed.kind === "chart" ? embed.metric : "Success rates in percent");
  return `${label}: ${text}`;
}

/**
 * How a report is laid out, the same in the app, the share link and the Markdown export: notes that
 * embed figures or tables come first (the report reads as a paper); the standalone result table and
 * charts show only what the notes do not embed. An embed that cannot be shown (its error stands in its
 * place) embeds nothing: the report still shows the table and charts it would show without it.
 */
export function reportLayout(doc: ReportDocument) {
  const shown = findEmbeds(doc.notes)
    .map((b) => b.embed)
    .filter((e) => (e.kind === "chart" ? !("error" in resolveChart(doc, e)) : e.kind === "table" ? !("error" in resolveTable(doc, e)) : false));
  const embedded = new Set(shown.flatMap((e) => (e.kind === "chart" ? [e.metric] : [])));
  return {
    notesFirst: shown.length > 0,
    showTable: !shown.some((e) => e.kind === "table"),
    charts: doc.charts.filter((c) => !embedded.has(c.key)),
  };
}
