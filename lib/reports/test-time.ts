/**
 * The paper's Table 3 (test-time scaling) from a report's runs: rows are methods (no test-time scaling,
 * parallel rehearsal N, sequential rehearsal N — per policy when the runs use several), columns are
 * benchmarks (τ²-Bench retail, BFCL multi-turn, the built-in shop domain, …), then Overall (the plain
 * mean of the benchmark columns) and Δ (Overall minus the same policy's no-rehearsal row). A run's method
 * and benchmark come from its config (lib/test-time.ts armOf), so any set of evaluation runs lays out —
 * the arms of a launched comparison, or runs added by hand. Pure, with its Markdown, LaTeX and CSV forms.
 */
import type { RunConfig } from "../../contracts/run-config";
import { testTimeArms, type TestTimeArm } from "../../contracts/test-time";
import { armLabel, armOf, benchmarkLabel, benchmarkOrder } from "../test-time";

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
  n: number;
  successes: number;
}

export interface TestTimeCell {
  /** Avg@k in percent (mean over tasks of the success rate over the task's k trials); null while the run has no results. */
  value: number | null;
  instances: number;
  k: number | null;
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
        cells[dataset] = {
          value: mine.length ? round2((100 * mine.reduce((s, o) => s + o.successes / o.n, 0)) / mine.length) : null,
          instances: mine.length,
          k,
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
    if (baseline?.overall != null) row.delta = round2(row.overall - baseline.overall);
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

  return {
    benchmarks: datasets.map((key) => ({ key, label: benchmarkLabel(key) })),
    rows,
    k: ks.size === 1 ? [...ks][0]! : null,
    notes,
  };
}

const fmt = (v: number | null | undefined) => (v == null ? "—" : v.toFixed(2));
const fmtDelta = (v: number | null) => (v == null ? "—" : `${v > 0 ? "+" : v < 0 ? "−" : "±"}${Math.abs(v).toFixed(2)}`);

/** Column titles: Setting, benchmarks, Overall, Δ. */
export function testTimeHeader(table: TestTimeTable): string[] {
  return ["Setting", ...table.benchmarks.map((b) => b.label), "Overall", "Δ"];
}

/** Cell texts of one row (values as the table shows them). */
export function testTimeRowTexts(table: TestTimeTable, row: TestTimeRow): string[] {
  return [row.label, ...table.benchmarks.map((b) => fmt(row.cells[b.key]?.value)), fmt(row.overall), row.arm === "none" ? "—" : fmtDelta(row.delta)];
}

export function testTimeCaption(table: TestTimeTable): string {
  const k = table.k == null ? "k" : String(table.k);
  return `Test-time rehearsal: Avg@${k} success in percent per benchmark; Overall is their plain mean; Δ is Overall minus the no-rehearsal row.`;
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

const mdCell = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

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

/** CSV rows: setting, benchmark, value, plus Overall and Δ per setting. */
export function testTimeCsvRows(table: TestTimeTable): string[][] {
  const rows: string[][] = [];
  for (const row of table.rows) {
    for (const b of table.benchmarks) {
      const c = row.cells[b.key];
      if (c?.value != null) rows.push([row.label, b.label, String(c.k ?? ""), String(c.instances), c.value.toFixed(2)]);
    }
    if (row.overall != null) rows.push([row.label, "Overall", "", "", row.overall.toFixed(2)]);
    if (row.delta != null) rows.push([row.label, "Δ", "", "", row.delta.toFixed(2)]);
  }
  return rows;
}
