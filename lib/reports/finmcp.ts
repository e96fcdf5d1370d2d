/**
 * The paper's Table 2 (FinMCP-Bench: TR, TP, TF1) from FinMCP evaluation runs, with upstream's macro and micro
 * figures and its per-group blocks (scenario, difficulty, task type) — computed from the per-sample counts each
 * evaluated trajectory stores (its score detail: TP, FP, FN, consist and the sample's group keys) by upstream's own
 * block function (lib/finmcp/score.ts), so every figure is evaluation.py's, rounded as Python's round(x, 4).
 * A run whose tools were answered by the replay of recorded gold outputs is labelled a replay on every row, note
 * and export — never upstream's protocol. Pure: the reports service and the run page feed it; the views render it.
 */
import type { RunConfig } from "../../contracts/run-config";
import { FINMCP_METRIC_PREFIX, finmcpModeLabel, parseFinmcpDataset, parseFinmcpEnvironment } from "../finmcp/datasets";
import { blockNumbers, metricBlock } from "../finmcp/score";

/** What one scored sample contributes (a trajectory's FinMCP score detail, messages left out). */
export interface FinmcpSampleCounts {
  index: number;
  classLevel1: string | null;
  classDifficulty: string | null;
  task: string | null;
  TP: number;
  FP: number;
  FN: number;
  consist: 0 | 1;
  /** Set when upstream would not score it (an error record, a KeyError its scorer skips). */
  notScored?: string;
}

/** Upstream's metric block in percent (N and consist as counts / percent). */
export interface FinmcpFigures {
  /** macro recall, precision, F1 (the paper's TR, TP, TF1), percent with 2 decimals. */
  TR: number;
  TP: number;
  TF1: number;
  microTR: number;
  microTP: number;
  microTF1: number;
  N: number;
  /** Share of samples whose ordered tool lists match exactly, percent. */
  exact: number;
}

export interface FinmcpGroupRow {
  key: string;
  figures: FinmcpFigures;
}

export interface FinmcpRow {
  runId: string;
  runName: string;
  status: string;
  /** finmcp:<file> */
  dataset: string;
  /** The evaluation step the row comes from. */
  step: number;
  replay: boolean;
  /** "replay of the recorded gold outputs (not upstream's live-server protocol)" or "live MCP server x (upstream's protocol)". */
  mode: string;
  /** Null when no sample was scored. */
  overall: FinmcpFigures | null;
  groups: { scenario: FinmcpGroupRow[]; difficulty: FinmcpGroupRow[]; task: FinmcpGroupRow[] };
  samples: number;
  errored: number;
  skipped: number;
  /** Replay only: calls answered "no recorded output". */
  unrecordedCalls: number | null;
  policy: string;
  sampling: string;
  notes: string[];
}

export interface FinmcpTable {
  rows: FinmcpRow[];
}

export interface FinmcpRunInput {
  id: string;
  name: string;
  status: string;
  config: RunConfig;
  checkpoint: string | null;
}

const pct = (x: number) => Math.round(x * 10_000) / 100;

/** Upstream's block over the samples, in percent. */
export function finmcpFigures(samples: readonly FinmcpSampleCounts[]): FinmcpFigures {
  const b = blockNumbers(metricBlock(samples));
  return { TR: pct(b.macro_Recall), TP: pct(b.macro_Precision), TF1: pct(b.macro_F1), microTR: pct(b.micro_Recall), microTP: pct(b.micro_Precision), microTF1: pct(b.micro_F1), N: b.N, exact: pct(b.consist_mean) };
}

/** Upstream's groups: first-seen order, the group key as its scorer forms it. */
function groups(samples: readonly FinmcpSampleCounts[], key: (s: FinmcpSampleCounts) => string | null): FinmcpGroupRow[] {
  const by = new Map<string, FinmcpSampleCounts[]>();
  for (const s of samples) {
    const k = key(s) ?? "—";
    by.set(k, [...(by.get(k) ?? []), s]);
  }
  return [...by].map(([k, list]) => ({ key: k, figures: finmcpFigures(list) }));
}

/** Table 2's row of one run from its stored samples and metric points (latest step), or null for a run that is not FinMCP. */
export function finmcpRow(run: FinmcpRunInput, step: number, samples: readonly FinmcpSampleCounts[], metrics: Record<string, number>): FinmcpRow | null {
  const parsed = parseFinmcpDataset(run.config.data.dataset);
  if (!parsed.ok) return null;
  const source = parseFinmcpEnvironment(run.config.finmcp.environment ?? "") ?? { kind: "replay" as const };
  const replay = source.kind === "replay" || metrics[`${FINMCP_METRIC_PREFIX}replay`] === 1;
  const scored = samples.filter((s) => !s.notScored);
  const m = (k: string) => metrics[`${FINMCP_METRIC_PREFIX}${k}`];
  const errored = m("errored") ?? samples.filter((s) => s.notScored?.startsWith("error record")).length;
  const skipped = m("skipped") ?? samples.filter((s) => s.notScored && !s.notScored.startsWith("error record")).length;
  const unrecordedCalls = replay ? (m("unrecorded_calls") ?? null) : null;
  const notes: string[] = [];
  if (replay) notes.push("REPLAY: each call was answered with the recorded output of the matching gold call (same tool and arguments), not by upstream's live MCP server; these numbers are not comparable with the paper's.");
  if (errored) notes.push(`${errored} error record(s) dropped, as upstream's evaluation.py drops them`);
  if (skipped) notes.push(`${skipped} sample(s) skipped, as upstream's scorer skips them (a KeyError)`);
  if (unrecordedCalls) notes.push(`${unrecordedCalls} call(s) had no recorded output (answered "no recorded output")`);
  const s = run.config.sampling.evalAct;
  const base = `${run.config.policy.model} on ${run.config.policy.node}`;
  return {
    runId: run.id,
    runName: run.name,
    status: run.status,
    dataset: run.config.data.dataset,
    step,
    replay,
    mode: finmcpModeLabel(source),
    overall: scored.length ? finmcpFigures(scored) : null,
    groups: { scenario: groups(scored, (x) => x.classLevel1), difficulty: groups(scored, (x) => x.classDifficulty), task: groups(scored, (x) => x.task) },
    samples: m("samples") ?? samples.length,
    errored,
    skipped,
    unrecordedCalls,
    policy: run.checkpoint ? `checkpoint of ${run.checkpoint} (${base})` : `${base} (base model)`,
    sampling: `temperature ${s.temperature}, top-p ${s.topP}, max ${s.maxTokens} tokens; repeats ${run.config.repeats}`,
    notes,
  };
}

export const FINMCP_TABLE_NOTE =
  "TR, TP and TF1 are upstream's macro recall, precision and F1 over the tool names each sample calls (multisets; arguments ignored), in percent; micro figures from the summed counts; exact = ordered tool lists equal. Groups as upstream's evaluation.py forms them (scenario = scenery up to the first \"-\", difficulty = diff_level.level, task type).";

const two = (x: number) => x.toFixed(2);
const md = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
const rowLabel = (r: FinmcpRow) => `${r.runName}${r.replay ? " (replay)" : ""}`;
const GROUP_LABEL = { scenario: "Scenario", difficulty: "Difficulty", task: "Task type" } as const;

export function finmcpMarkdown(table: FinmcpTable): string[] {
  const lines = ["## FinMCP-Bench (Table 2)", "", "| Run | Data | Tools | TR | TP | TF1 | micro TR | micro TP | micro TF1 | N | exact |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"];
  for (const r of table.rows) {
    const f = r.overall;
    lines.push(`| ${[md(rowLabel(r)), md(r.dataset), md(r.mode), ...(f ? [two(f.TR), two(f.TP), two(f.TF1), two(f.microTR), two(f.microTP), two(f.microTF1), String(f.N), two(f.exact)] : ["—", "—", "—", "—", "—", "—", "0", "—"])].join(" | ")} |`);
  }
  lines.push("", FINMCP_TABLE_NOTE);
  for (const r of table.rows) {
    lines.push("", `### ${md(rowLabel(r))}`, "", `Policy: ${md(r.policy)}; sampling ${md(r.sampling)}; tools: ${md(r.mode)}; data ${md(r.dataset)} (user-supplied FinMCP-Bench file, CC-BY-NC-SA-4.0); eval step ${r.step}.`);
    if (r.notes.length) lines.push("", ...r.notes.map((n) => `- ${md(n)}`));
    for (const g of ["scenario", "difficulty", "task"] as const) {
      if (!r.groups[g].length) continue;
      lines.push("", `| ${GROUP_LABEL[g]} | TR | TP | TF1 | micro TF1 | N | exact |`, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
      for (const x of r.groups[g]) lines.push(`| ${md(x.key)} | ${two(x.figures.TR)} | ${two(x.figures.TP)} | ${two(x.figures.TF1)} | ${two(x.figures.microTF1)} | ${x.figures.N} | ${two(x.figures.exact)} |`);
    }
  }
  return lines;
}

export const FINMCP_CSV_HEADER = ["run", "dataset", "tools", "replay", "group", "group_key", "TR", "TP", "TF1", "micro_TR", "micro_TP", "micro_TF1", "N", "exact", "policy", "sampling", "note"];

/** One line per run's overall block, then one per group block. */
export function finmcpCsvRows(table: FinmcpTable): string[][] {
  return table.rows.flatMap((r) => {
    const line = (group: string, key: string, f: FinmcpFigures | null, note: string) => [
      r.runName,
      r.dataset,
      r.mode,
      r.replay ? "yes" : "no",
      group,
      key,
      ...(f ? [two(f.TR), two(f.TP), two(f.TF1), two(f.microTR), two(f.microTP), two(f.microTF1), String(f.N), two(f.exact)] : ["", "", "", "", "", "", "0", ""]),
      r.policy,
      r.sampling,
      note,
    ];
    return [line("overall", "", r.overall, r.notes.join(" ")), ...(["scenario", "difficulty", "task"] as const).flatMap((g) => r.groups[g].map((x) => line(g, x.key, x.figures, "")))];
  });
}

export function finmcpLatex(table: FinmcpTable, escape: (text: string) => string): string[] {
  const notes = table.rows.map((r) => `${escape(rowLabel(r))}: ${escape(r.policy)}; tools: ${escape(r.mode)}; ${escape(r.sampling)}${r.notes.length ? `; ${r.notes.map(escape).join("; ")}` : ""}.`);
  return [
    "\\begin{table}[t]",
    "\\centering",
    "\\caption{FinMCP-Bench (percent; TR, TP, TF1 = upstream's macro recall, precision, F1 over tool names)}",
    "\\begin{tabular}{lrrrrrr}",
    "\\toprule",
    " & \\multicolumn{3}{c}{macro} & \\multicolumn{3}{c}{micro} \\\\",
    "\\cmidrule(lr){2-4} \\cmidrule(lr){5-7}",
    "Run & TR & TP & TF1 & TR & TP & TF1 \\\\",
    "\\midrule",
    ...table.rows.map((r) => {
      const f = r.overall;
      return `${escape(rowLabel(r))} & ${f ? [f.TR, f.TP, f.TF1, f.microTR, f.microTP, f.microTF1].map(two).join(" & ") : "-- & -- & -- & -- & -- & --"} \\\\`;
    }),
    "\\bottomrule",
    "\\end{tabular}",
    `\\par\\smallskip{\\footnotesize ${escape(FINMCP_TABLE_NOTE)} ${notes.join(" ")}}`,
    "\\end{table}",
  ];
}
