/**
 * The paper's Table 3 (test-time scaling) from a report's runs: rows are methods (no test-time scaling,
 * parallel rehearsal N, sequential rehearsal N — per policy when the runs use several), columns are
 * benchmarks (τ²-Bench retail, BFCL multi-turn, the built-in shop domain, …), then Overall (the plain
 * mean of the benchmark columns) and Δ (Overall minus the same policy's no-rehearsal row). A run's method
 * and benchmark come from its config (lib/test-time.ts armOf), so any set of evaluation runs lays out —
 * the arms of a launched comparison, or runs added by hand. Pure, with its Markdown, LaTeX and CSV forms.
 */
import type { RunConfig } from "../../contracts/run-config";
import { mdText } from "./markdown-safe";
import { testTimeArms, type TestTimeArm } from "../../contracts/test-time";
import { armLabel, armOf, benchmarkLabel, benchmarkOrder } from "../test-time";
import { moverLinear, wilson, type Interval } from "../stats/intervals";

export interface TestTimeRunInput {
  id: string;
  name: string;
  status: string;
  /** The run's parsed config; runs whose config does not parse are left out. */
  config: RunConfig;
  /** The policy in words when it is a training run's checkpoint ("run "x" step 40"); else the config's model on its node. */
  checkpoint?: string | null;
}

export interface TestTimeOutcome {
  runId: string;
  instanceId: string;
  /** Trials of the task that ran (errored ones are left out). */
  n: number;
  successes: number;
  /** Trials of the task that errored. */
  errored?: number;
}

export interface TestTimeCell {
  /** Avg@k in percent (mean over tasks of the success rate over the task's k trials that ran); null while the run has no results. */
  value: number | null;
  instances: number;
  k: number | null;
  /** n: the episodes the value is computed over (absent in snapshots frozen before it was recorded). */
  episodes?: number;
  /** Episodes of the cell's run that errored and are left out of the value. */
  errored?: number;
  /** 95 % Wilson interval of the value, in percent, with n = `episodes` (lib/stats/intervals.ts). */
  interval?: Interval | null;
  runId: string;
  runName: string;
  status: string;
}

export interface TestTimeRow {
  key: string;
  /** "model on node" of the policy evaluated. */
  policy: string;
  arm: TestTimeArm;
  attempts: number | null;
  /** The paper's row title, e.g. "Parallel rehearsal (N=4)" (with the policy when the table has several). */
  label: string;
  cells: Record<string, TestTimeCell | null>;
  /** Mean of the benchmark columns, when the row has a value in every one. */
  overall: number | null;
  /** overall − the same policy's no-rehearsal overall. */
  delta: number | null;
  /** 95 % interval of Δ in percentage points (MOVER over the cells' Wilson limits; Newcombe's for one benchmark). */
  deltaInterval?: Interval | null;
}

export interface TestTimeTable {
  benchmarks: { key: string; label: string }[];
  rows: TestTimeRow[];
  /** k when every cell shares it. */
  k: number | null;
  /** What the reader must know: arms on different tasks, runs left out of a cell. */
  notes: string[];
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const policyOf = (r: TestTimeRunInput) => (r.checkpoint ? `${r.checkpoint} (${r.config.policy.model}) on ${r.config.policy.node}` : `${r.config.policy.model} on ${r.config.policy.node}`);

/** Table 3 of the evaluation runs among `runs`, or null when none of them used test-time rehearsal. */
export function buildTestTimeTable(runs: TestTimeRunInput[], outcomes: TestTimeOutcome[]): TestTimeTable | null {
  const evals = runs.filter((r) => r.config.kind === "eval");
  if (!evals.some((r) => r.config.testTime.enabled)) return null;
  const notes: string[] = [];

  const datasets = [...new Set(evals.map((r) => r.config.data.dataset))].sort(
    (a, b) => benchmarkOrder(a) - benchmarkOrder(b) || benchmarkLabel(a).localeCompare(benchmarkLabel(b)),
  );
  const policies = [...new Set(evals.map((r) => policyOf(r)))];

  // Run per (row, column): the last one listed wins; the others are named in a note.
  const rowsByKey = new Map<string, { policy: string; arm: TestTimeArm; attempts: number | null; runs: Map<string, TestTimeRunInput> }>();
  for (const run of evals) {
    const { arm, attempts } = armOf(run.config);
    const policy = policyOf(run);
    const key = `${policy}|${arm}|${attempts ?? ""}`;
    const row = rowsByKey.get(key) ?? { policy, arm, attempts, runs: new Map() };
    const dataset = run.config.data.dataset;
    const earlier = row.runs.get(dataset);
    if (earlier) notes.push(`${benchmarkLabel(dataset)}, ${armLabel(arm, attempts)}: "${run.name}" is shown; "${earlier.name}" evaluated the same and is left out.`);
    row.runs.set(dataset, run);
    rowsByKey.set(key, row);
  }

  const byRun = new Map<string, TestTimeOutcome[]>();
  for (const o of outcomes) if (o.n > 0) byRun.set(o.runId, [...(byRun.get(o.runId) ?? []), o]);
  const erroredOf = (runId: string) => outcomes.filter((o) => o.runId === runId).reduce((s, o) => s + (o.errored ?? 0), 0);
  const pct = (i: Interval | null): Interval | null => (i ? { low: round2(100 * i.low), high: round2(100 * i.high) } : null);
  const ks = new Set<number>();

  const rows: TestTimeRow[] = [...rowsByKey.entries()]
    .sort(
      ([, a], [, b]) =>
        policies.indexOf(a.policy) - policies.indexOf(b.policy) ||
        testTimeArms.indexOf(a.arm) - testTimeArms.indexOf(b.arm) ||
        (a.attempts ?? 0) - (b.attempts ?? 0),
    )
    .map(([key, r]) => {
      const cells: Record<string, TestTimeCell | null> = {};
      for (const dataset of datasets) {
        const run = r.runs.get(dataset);
        if (!run) {
          cells[dataset] = null;
          continue;
        }
        const mine = byRun.get(run.id) ?? [];
        const k = mine.length ? Math.max(...mine.map((o) => o.n)) : null;
        if (k != null) ks.add(k);
        const rate = mine.length ? mine.reduce((s, o) => s + o.successes / o.n, 0) / mine.length : null;
        const episodes = mine.reduce((s, o) => s + o.n, 0);
        cells[dataset] = {
          value: rate == null ? null : round2(100 * rate),
          instances: mine.length,
          k,
          episodes,
          errored: erroredOf(run.id),
          interval: rate == null ? null : pct(wilson(rate, episodes)),
          runId: run.id,
          runName: run.name,
          status: run.status,
        };
      }
      const values = datasets.map((d) => cells[d]?.value ?? null);
      const overall = values.every((v) => v != null) && values.length ? round2(values.reduce((s, v) => s + v!, 0) / values.length) : null;
      const label = policies.length > 1 ? `${armLabel(r.arm, r.attempts)} — ${r.policy}` : armLabel(r.arm, r.attempts);
      return { key, policy: r.policy, arm: r.arm, attempts: r.attempts, label, cells, overall, delta: null };
    });

  for (const row of rows) {
    if (row.arm === "none" || row.overall == null) continue;
    const baseline = rows.find((b) => b.policy === row.policy && b.arm === "none");
    if (baseline?.overall == null) continue;
    row.delta = round2(row.overall - baseline.overall);
    // Δ = (1/B) Σ arm − (1/B) Σ baseline over the B benchmark columns, each cell a rate over its episodes.
    const B = datasets.length;
    const terms = datasets.flatMap((d) => {
      const a = row.cells[d]!;
      const b = baseline.cells[d]!;
      return [
        { coef: 1 / B, p: a.value! / 100, n: a.episodes ?? 0 },
        { coef: -1 / B, p: b.value! / 100, n: b.episodes ?? 0 },
      ];
    });
    row.deltaInterval = pct(moverLinear(terms));
  }

  // The comparison is only fair on the same tasks: say so when a column's arms evaluated different ones.
  for (const dataset of datasets)
    for (const policy of policies) {
      const sets = rows
        .filter((r) => r.policy === policy && r.cells[dataset]?.value != null)
        .map((r) => ({ row: r, ids: new Set((byRun.get(r.cells[dataset]!.runId) ?? []).map((o) => o.instanceId)) }));
      if (sets.length < 2) continue;
      const first = sets[0]!;
      const differing = sets.filter((s) => s.ids.size !== first.ids.size || [...s.ids].some((id) => !first.ids.has(id)));
      if (differing.length) {
        notes.push(
          `${benchmarkLabel(dataset)}${policies.length > 1 ? ` (${policy})` : ""}: the arms evaluated different tasks (${sets.map((s) => `${s.row.label}: ${s.ids.size}`).join(", ")}), so their rows are not directly comparable.`,
        );
      }
    }

  // Errored episodes are left out of the values: say how many, per run.
  for (const row of rows)
    for (const dataset of datasets) {
      const c = row.cells[dataset];
      if (c?.errored) notes.push(`${benchmarkLabel(dataset)}, ${row.label}: ${c.errored} episode${c.errored === 1 ? "" : "s"} of "${c.runName}" errored (infrastructure, not the policy) and ${c.errored === 1 ? "is" : "are"} left out.`);
    }

  return {
    benchmarks: datasets.map((key) => ({ key, label: benchmarkLabel(key) })),
    rows,
    k: ks.size === 1 ? [...ks][0]! : null,
    notes,
  };
}

const fmt = (v: number | null | undefined) => (v == null ? "—" : v.toFixed(2));
const signed = (v: number, digits: number) => `${v > 0 ? "+" : v < 0 ? "−" : "±"}${Math.abs(v).toFixed(digits)}`;
const fmtDelta = (v: number | null) => (v == null ? "—" : signed(v, 2));
const unsigned = (v: number, digits: number) => `${v < 0 ? "−" : ""}${Math.abs(v).toFixed(digits)}`;

/** "62.50 (n = 8)": a cell's value with the episodes it is computed over. */
export function testTimeCellText(c: TestTimeCell | null | undefined): string {
  if (c?.value == null) return "—";
  return c.episodes != null ? `${fmt(c.value)} (n = ${c.episodes})` : fmt(c.value);
}

/** "+25.00 [−38.1, 60.0]": a Δ with its 95 % interval in percentage points. */
export function testTimeDeltaText(row: TestTimeRow): string {
  if (row.arm === "none" || row.delta == null) return "—";
  const i = row.deltaInterval;
  return i ? `${fmtDelta(row.delta)} [${unsigned(i.low, 1)}, ${unsigned(i.high, 1)}]` : fmtDelta(row.delta);
}

/** Column titles: Setting, benchmarks, Overall, Δ. */
export function testTimeHeader(table: TestTimeTable): string[] {
  return ["Setting", ...table.benchmarks.map((b) => b.label), "Overall", "Δ"];
}

/** Cell texts of one row (values as the table shows them). */
export function testTimeRowTexts(table: TestTimeTable, row: TestTimeRow): string[] {
  return [row.label, ...table.benchmarks.map((b) => testTimeCellText(row.cells[b.key])), fmt(row.overall), testTimeDeltaText(row)];
}

export function testTimeCaption(table: TestTimeTable): string {
  const k = table.k == null ? "k" : String(table.k);
  return `Test-time rehearsal: Avg@${k} success in percent per benchmark over n episodes that ran (errored ones left out); Overall is their plain mean; Δ is Overall minus the no-rehearsal row, with its 95 % interval in points (Wilson score limits per cell, combined by MOVER — Newcombe's interval for one benchmark).`;
}

const latexSpecials: Record<string, string> = { "\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", $: "\\$", "#": "\\#", _: "\\_", "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}" };
/** Escaped for LaTeX, with the table's few non-ASCII signs in math (τ², Δ) or dashes. */
const latexEscape = (text: string) =>
  text
    .replace(/[\\&%$#_{}~^]/g, (ch) => latexSpecials[ch]!)
    .replace(/\r?\n/g, " ")
    .replace(/τ²/g, "$\\tau^2$")
    .replace(/Δ/g, "$\\Delta$")
    .replace(/—/g, "--")
    .replace(/−/g, "-");

/** Users' text in the Markdown export, escaped as the app escapes it (markdown-safe.ts). */
const mdCell = mdText;

/** The table as a GFM Markdown section (for the Markdown export). */
export function testTimeMarkdown(table: TestTimeTable): string[] {
  const header = testTimeHeader(table);
  const lines = ["## Test-time rehearsal (Table 3 layout)", "", testTimeCaption(table), ""];
  lines.push(`| ${header.map(mdCell).join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`);
  for (const row of table.rows) lines.push(`| ${testTimeRowTexts(table, row).map(mdCell).join(" | ")} |`);
  for (const note of table.notes) lines.push("", `*${mdCell(note)}*`);
  return lines;
}

/** The table in booktabs LaTeX, as the paper sets it. */
export function testTimeLatex(table: TestTimeTable): string[] {
  const header = testTimeHeader(table);
  const out = [
    "\\begin{table}[t]",
    "\\centering",
    `\\caption{${latexEscape(testTimeCaption(table))}}`,
    `\\begin{tabular}{l${"r".repeat(header.length - 1)}}`,
    "\\toprule",
    `${header.map(latexEscape).join(" & ")} \\\\`,
    "\\midrule",
  ];
  for (const row of table.rows) out.push(`${testTimeRowTexts(table, row).map(latexEscape).join(" & ")} \\\\`);
  out.push("\\bottomrule", "\\end{tabular}", "\\end{table}");
  return out;
}

/** CSV rows: setting, benchmark, k, tasks, value, n (episodes), errored, 95 % low, 95 % high; plus Overall and Δ per setting. */
export function testTimeCsvRows(table: TestTimeTable): string[][] {
  const rows: string[][] = [];
  const lim = (i: Interval | null | undefined) => (i ? [i.low.toFixed(2), i.high.toFixed(2)] : ["", ""]);
  for (const row of table.rows) {
    for (const b of table.benchmarks) {
      const c = row.cells[b.key];
      if (c?.value != null) rows.push([row.label, b.label, String(c.k ?? ""), String(c.instances), c.value.toFixed(2), String(c.episodes ?? ""), String(c.errored ?? ""), ...lim(c.interval)]);
    }
    if (row.overall != null) rows.push([row.label, "Overall", "", "", row.overall.toFixed(2), "", "", "", ""]);
    if (row.delta != null) rows.push([row.label, "Δ", "", "", row.delta.toFixed(2), "", "", ...lim(row.deltaInterval)]);
  }
  return rows;
}
