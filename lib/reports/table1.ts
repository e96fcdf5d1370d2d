/**
 * The paper's Table 1 from a report's evaluation runs: BFCL V4 (Web, Mem., Multi, NoLive, Live, Irrel., Avg),
 * τ²-Bench (Retail, Telecom, Airline, Avg), VitaBench (Cross, Deliv., Inst., OTA, Avg) and Overall, one row per
 * evaluated policy — a base model on its node, or a training run's checkpoint — gathered from every run of the
 * report that evaluated it (a run per benchmark or domain, as the product runs them).
 *
 * The averages are the paper's: BFCL Avg is upstream's Overall Acc (10 % non-live, 10 % live, 10 % irrelevance,
 * 30 % multi-turn, 40 % agentic = web search and memory halves), τ² Avg the mean of its three domains, VitaBench
 * Avg the mean of its four, Overall the mean of the three averages. A column without a result is "—" with the
 * reason; an average over a part of its columns is marked partial (never bolded: it is not the paper's number).
 * Best and second best are marked only among rows with the same columns (the same set of columns with values).
 * Every row says how it was made (provenance): the policy, the runs, repeats, sampling, judge and user simulator,
 * the benchmark data version and the aggregation. Pure: the reports service feeds it; the page and exports render it.
 */
import type { RunConfig, SamplingParams } from "../../contracts/run-config";
import { PAPER_COLUMNS, type PaperColumnKey } from "../bfcl/paper";
import { OVERALL_WEIGHTS } from "../bfcl/aggregate";
import { TAU2_DOMAIN_LABELS, type Tau2Domain } from "../tau2/datasets";
import { bfclRow, BFCL_METRIC_PREFIX, type MetricPointRow } from "./bfcl";
import { spreadOf, spreadText, type RepeatSpread } from "./spread";
import { TAU2_METRIC_PREFIX, TAU2_REPORT_DOMAINS, tau2Row } from "./tau2";
import type { VitaTable } from "./vitabench";

export const TABLE1_GROUPS = [
  {
    key: "bfcl",
    label: "BFCL V4",
    columns: [
      { key: "web", label: "Web" },
      { key: "memory", label: "Mem." },
      { key: "multiTurn", label: "Multi" },
      { key: "nonLive", label: "NoLive" },
      { key: "live", label: "Live" },
      { key: "irrelevance", label: "Irrel." },
      { key: "avg", label: "Avg" },
    ],
  },
  {
    key: "tau2",
    label: "τ²-Bench",
    columns: [
      { key: "retail", label: "Retail" },
      { key: "telecom", label: "Telecom" },
      { key: "airline", label: "Airline" },
      { key: "avg", label: "Avg" },
    ],
  },
  {
    key: "vitabench",
    label: "VitaBench",
    columns: [
      { key: "cross", label: "Cross" },
      { key: "delivery", label: "Deliv." },
      { key: "instore", label: "Inst." },
      { key: "ota", label: "OTA" },
      { key: "avg", label: "Avg" },
    ],
  },
] as const;

export type Table1Group = (typeof TABLE1_GROUPS)[number]["key"];
/** A column id: "<group>.<column>", or "overall". */
export type Table1ColumnId = string;
export const TABLE1_OVERALL = "overall";

/** Every column of the table in order (17): the groups' columns, then Overall. */
export const TABLE1_COLUMNS: { id: Table1ColumnId; group: Table1Group | null; key: string; label: string; average: boolean }[] = [
  ...TABLE1_GROUPS.flatMap((g) => g.columns.map((c) => ({ id: `${g.key}.${c.key}`, group: g.key as Table1Group, key: c.key as string, label: c.label as string, average: c.key === "avg" }))),
  { id: TABLE1_OVERALL, group: null, key: TABLE1_OVERALL, label: "Overall", average: true },
];

/** The weights of upstream's BFCL Overall Acc over the paper's six columns (web search and memory share the agentic 40 %). */
export const BFCL_AVG_WEIGHTS: Record<Exclude<PaperColumnKey, "avg">, number> = (() => {
  const [nonLive, live, irrelevance, multiTurn, agentic] = OVERALL_WEIGHTS;
  return { web: agentic / 2, memory: agentic / 2, multiTurn, nonLive, live, irrelevance };
})();

const round2 = (x: number) => Math.round(x * 100) / 100;
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * BFCL Avg from the paper's six columns with upstream's weights. With some columns missing, the weighted mean over
 * those present (weights renormalised) — a partial average, not the paper's number.
 */
export function bfclAvgOfColumns(columns: Partial<Record<Exclude<PaperColumnKey, "avg">, number | null>>): { value: number | null; partial: boolean } {
  const present = (Object.keys(BFCL_AVG_WEIGHTS) as (keyof typeof BFCL_AVG_WEIGHTS)[]).filter((k) => columns[k] != null);
  if (present.length === 0) return { value: null, partial: false };
  const w = present.reduce((s, k) => s + BFCL_AVG_WEIGHTS[k], 0);
  const value = present.reduce((s, k) => s + BFCL_AVG_WEIGHTS[k] * columns[k]!, 0) / w;
  return { value, partial: present.length < 6 };
}

/** The paper's Overall: the mean of the three benchmark averages; partial when one is missing or partial. */
export function table1Overall(averages: readonly { value: number | null; partial: boolean }[]): { value: number | null; partial: boolean } {
  const present = averages.filter((a) => a.value !== null);
  if (present.length === 0) return { value: null, partial: false };
  return { value: mean(present.map((a) => a.value!)), partial: present.length < averages.length || present.some((a) => a.partial) };
}

export interface Table1Cell {
  id: Table1ColumnId;
  /** Percent, rounded to 2 decimals; null where the column has no result (shown "—"). */
  value: number | null;
  /** An average over a part of its columns (marked, never bolded). */
  partial: boolean;
  /** The spread over independent passes (`repeats`), where the cell comes from one run of several passes. */
  spread: RepeatSpread | null;
  /** Why there is no value, or what the reader must know about it. */
  note: string | null;
  /** 1 = best, 2 = second best among the rows with the same columns; null otherwise. */
  rank: 1 | 2 | null;
}

export interface Table1Source {
  group: Table1Group;
  runs: { id: string; name: string; status: string }[];
  /** Independent passes of the runs (the paper's Avg@k over k runs), as "4" or "1, 4". */
  repeats: string;
  trialsPerTask: string;
  sampling: string;
  judge: string | null;
  userSimulator: string | null;
  dataVersion: string;
  aggregation: string;
}

export interface Table1Row {
  key: string;
  label: string;
  /** The evaluated policy in words: "Qwen/Qwen3-8B on gpu-1 (base model)" or a checkpoint. */
  policy: string;
  cells: Table1Cell[];
  /** The column ids with a complete value: rows are compared only with rows of the same set. */
  signature: Table1ColumnId[];
  provenance: Table1Source[];
}

export interface Table1 {
  columns: typeof TABLE1_COLUMNS;
  rows: Table1Row[];
}

export interface Table1Run {
  id: string;
  name: string;
  status: string;
  config: RunConfig;
  /** "run "x" step 40" when the run evaluated a training run's checkpoint, else null. */
  checkpoint: string | null;
}

export interface Table1Input {
  runs: readonly Table1Run[];
  /** BFCL and τ² metric points, passes pooled (lib/reports/repeats.ts poolBfclPasses). */
  points: readonly MetricPointRow[];
  /** The same points per pass (unpooled), for the spread of multi-pass runs. */
  passPoints: readonly MetricPointRow[];
  /** Each multi-pass run's pass steps. */
  passes: ReadonlyMap<string, number[]>;
  vitabench: VitaTable | null;
}

export const TABLE1_DATA_VERSIONS: Record<Table1Group, string> = {
  bfcl: "BFCL v4 (gorilla berkeley-function-call-leaderboard @ 6ea5797)",
  tau2: "τ²-bench v0.2.0 task files",
  vitabench: "VitaBench @ 96f3b85 task files",
};

export const TABLE1_AGGREGATION: Record<Table1Group | "overall", string> = {
  bfcl: "accuracy per category as upstream's checker scores it, Avg@k over each task's trials; columns and Avg = upstream's Overall Acc (10 % non-live, 10 % live, 10 % irrelevance, 30 % multi-turn, 40 % agentic: web search and memory halves)",
  tau2: "Avg@k over each task's trials per domain (reward 1 = success); Avg = mean of Retail, Telecom, Airline",
  vitabench: "upstream's average@k per domain (the judge's reward over each task's trials); Avg = mean of Cross, Deliv., Inst., OTA",
  overall: "Overall = mean of the BFCL, τ² and VitaBench averages",
};

const nodeModel = (m: { node: string; model: string } | undefined) => (m ? `${m.model} on ${m.node}` : null);
const samplingText = (s: SamplingParams) => `temperature ${s.temperature}, top-p ${s.topP}, max ${s.maxTokens} tokens`;

/** The evaluated policy of a run, and its row key. */
export function policyOf(run: Table1Run): { key: string; label: string; policy: string } {
  const base = nodeModel(run.config.policy) ?? "no policy";
  if (run.checkpoint) return { key: `ckpt\u0000${run.checkpoint}\u0000${base}`, label: `${run.checkpoint}`, policy: `checkpoint of ${run.checkpoint} (${base})` };
  return { key: `base\u0000${base}`, label: base, policy: `${base} (base model)` };
}

const uniq = (xs: readonly string[]) => [...new Set(xs)];

function sourceOf(group: Table1Group, runs: readonly Table1Run[]): Table1Source {
  const list = (f: (r: Table1Run) => string | null) => {
    const v = uniq(runs.map(f).filter((x): x is string => x !== null));
    return v.length ? v.join("; ") : null;
  };
  return {
    group,
    runs: runs.map((r) => ({ id: r.id, name: r.name, status: r.status })),
    repeats: uniq(runs.map((r) => String(r.config.repeats))).join(", "),
    trialsPerTask: uniq(runs.map((r) => String(r.config.trialsPerTask))).join(", "),
    sampling: list((r) => samplingText(r.config.sampling.evalAct)) ?? "",
    judge: list((r) => nodeModel(r.config.reward.judge)),
    userSimulator: list((r) => nodeModel(r.config.rollout.userSimulator)),
    dataVersion: TABLE1_DATA_VERSIONS[group],
    aggregation: TABLE1_AGGREGATION[group],
  };
}

/** A run's metric points of a prefix at its latest step. */
function latest(points: readonly MetricPointRow[], runId: string, test: (key: string) => boolean): { step: number; metrics: Record<string, number> } | null {
  const mine = points.filter((p) => p.runId === runId && test(p.key));
  if (mine.length === 0) return null;
  const step = Math.max(...mine.map((p) => p.step));
  return { step, metrics: Object.fromEntries(mine.filter((p) => p.step === step).map((p) => [p.key, p.value])) };
}

const atStep = (points: readonly MetricPointRow[], runId: string, step: number, prefix: string) =>
  Object.fromEntries(points.filter((p) => p.runId === runId && p.step === step && p.key.startsWith(prefix)).map((p) => [p.key, p.value]));

type GroupCells = { cells: Map<string, Omit<Table1Cell, "rank" | "id">>; runs: Table1Run[] };

const empty = (note: string): Omit<Table1Cell, "rank" | "id"> => ({ value: null, partial: false, spread: null, note });

/** A spread in percent over the passes, when it has two or more. */
function spreadPct(values: readonly number[]): RepeatSpread | null {
  const s = spreadOf(values);
  return s && s.passes > 1 ? { passes: s.passes, mean: round2(s.mean), std: round2(s.std), min: round2(s.min), max: round2(s.max) } : null;
}

/** BFCL for one policy: each category from the first of its runs that evaluated it (report order). */
function bfclCells(runs: readonly Table1Run[], input: Table1Input): GroupCells {
  const merged: Record<string, number> = {};
  const used: Table1Run[] = [];
  let step = 0;
  const taken = new Set<string>();
  for (const run of runs) {
    const l = latest(input.points, run.id, (k) => k.startsWith(BFCL_METRIC_PREFIX));
    if (!l) continue;
    const categories = Object.keys(l.metrics)
      .map((k) => /^val\/bfcl\/([a-z_]+)\/tasks$/.exec(k)?.[1])
      .filter((c): c is string => c !== undefined && c !== "summary" && !taken.has(c));
    if (categories.length === 0) continue;
    for (const c of categories) {
      taken.add(c);
      for (const [key, value] of Object.entries(l.metrics)) if (key.startsWith(`${BFCL_METRIC_PREFIX}${c}/`)) merged[key] = value;
    }
    used.push(run);
    step = Math.max(step, l.step);
  }
  const cells = new Map<string, Omit<Table1Cell, "rank" | "id">>();
  const row = used.length ? bfclRow({ id: used[0]!.id, name: used[0]!.name }, step, merged) : null;
  if (!row) {
    for (const c of PAPER_COLUMNS) cells.set(c, empty("no BFCL evaluation of this policy in the report"));
    return { cells, runs: [] };
  }
  // The spread: when one run of several passes gives the whole BFCL part, each column per pass.
  const passSteps = used.length === 1 ? input.passes.get(used[0]!.id) : undefined;
  const perPass = passSteps && passSteps.length > 1 ? passSteps.map((s) => bfclRow({ id: used[0]!.id, name: used[0]!.name }, s, atStep(input.passPoints, used[0]!.id, s, BFCL_METRIC_PREFIX))) : null;
  const colVals: Partial<Record<Exclude<PaperColumnKey, "avg">, number | null>> = {};
  for (const c of row.columns) {
    if (c.key === "avg") continue;
    colVals[c.key] = c.value;
    const spread = perPass ? spreadPct(perPass.map((r) => r?.columns.find((x) => x.key === c.key)?.value).filter((v): v is number => v != null)) : null;
    cells.set(c.key, { value: c.value, partial: false, spread, note: c.value === null ? (c.note ?? "not run") : null });
  }
  const avgColumn = row.columns.find((c) => c.key === "avg")!;
  if (avgColumn.value !== null) {
    const spread = perPass ? spreadPct(perPass.map((r) => r?.columns.find((x) => x.key === "avg")?.value).filter((v): v is number => v != null)) : null;
    cells.set("avg", { value: avgColumn.value, partial: false, spread, note: null });
  } else {
    const partial = bfclAvgOfColumns(colVals);
    const missing = row.columns.filter((c) => c.key !== "avg" && c.value === null).map((c) => c.label);
    cells.set(
      "avg",
      partial.value === null
        ? empty("no BFCL column has a complete result")
        : { value: round2(partial.value), partial: true, spread: null, note: `partial: upstream's weights over the columns with results only (${missing.join(", ")} not complete)` },
    );
  }
  return { cells, runs: used };
}

/** τ² for one policy: each domain from the first of its runs that evaluated it. */
function tau2Cells(runs: readonly Table1Run[], input: Table1Input): GroupCells {
  const cells = new Map<string, Omit<Table1Cell, "rank" | "id">>();
  const used: Table1Run[] = [];
  const source = new Map<Tau2Domain, Table1Run>();
  const values: Partial<Record<Tau2Domain, number>> = {};
  for (const d of TAU2_REPORT_DOMAINS) {
    for (const run of runs) {
      const l = latest(input.points, run.id, (k) => k === `${TAU2_METRIC_PREFIX}${d}/avg`);
      if (!l) continue;
      const metrics = atStep(input.points, run.id, l.step, TAU2_METRIC_PREFIX);
      const row = tau2Row(run, l.step, metrics);
      const cell = row?.cells[d];
      if (!cell) continue;
      source.set(d, run);
      if (!used.includes(run)) used.push(run);
      values[d] = cell.value;
      const steps = input.passes.get(run.id);
      const spread = steps && steps.length > 1 ? spreadPct(steps.map((s) => atStep(input.passPoints, run.id, s, TAU2_METRIC_PREFIX)[`${TAU2_METRIC_PREFIX}${d}/avg`]).filter((v): v is number => v !== undefined).map((v) => 100 * v)) : null;
      const notes = [cell.notScored ? `${cell.notScored} trial(s) errored and are left out` : "", `${cell.tasks} tasks, ${cell.trials} trials`].filter(Boolean).join("; ");
      cells.set(d, { value: cell.value, partial: false, spread, note: notes });
      break;
    }
    if (!cells.has(d)) cells.set(d, empty(`no τ² ${TAU2_DOMAIN_LABELS[d]} evaluation of this policy in the report`));
  }
  const present = TAU2_REPORT_DOMAINS.filter((d) => values[d] !== undefined);
  if (present.length === 0) {
    cells.set("avg", empty("no τ² evaluation of this policy in the report"));
    return { cells, runs: [] };
  }
  const complete = present.length === TAU2_REPORT_DOMAINS.length;
  const one = new Set(source.values()).size === 1 ? [...source.values()][0]! : null;
  const steps = one ? input.passes.get(one.id) : undefined;
  const spread =
    complete && one && steps && steps.length > 1
      ? spreadPct(
          steps.flatMap((s) => {
            const m = atStep(input.passPoints, one.id, s, TAU2_METRIC_PREFIX);
            const v = TAU2_REPORT_DOMAINS.map((d) => m[`${TAU2_METRIC_PREFIX}${d}/avg`]);
            return v.every((x) => x !== undefined) ? [(100 * mean(v as number[]))] : [];
          }),
        )
      : null;
  const missing = TAU2_REPORT_DOMAINS.filter((d) => values[d] === undefined).map((d) => TAU2_DOMAIN_LABELS[d]);
  cells.set("avg", {
    value: round2(mean(present.map((d) => values[d]!))),
    partial: !complete,
    spread,
    note: complete ? null : `partial: mean of ${present.map((d) => TAU2_DOMAIN_LABELS[d]).join(", ")} only (${missing.join(", ")} not run)`,
  });
  return { cells, runs: used };
}

/** VitaBench for one policy: the group's first row whose runs evaluated this policy (its language and judge). */
function vitaCells(policyRuns: readonly Table1Run[], input: Table1Input): GroupCells & { extra: string | null } {
  const cells = new Map<string, Omit<Table1Cell, "rank" | "id">>();
  const ids = new Set(policyRuns.map((r) => r.id));
  const rows = (input.vitabench?.rows ?? []).filter((r) => r.cells.some((c) => c.runId !== null && ids.has(c.runId)));
  const row = rows[0];
  if (!row) {
    for (const c of TABLE1_GROUPS[2].columns) cells.set(c.key, empty("no VitaBench evaluation of this policy in the report"));
    return { cells, runs: [], extra: null };
  }
  for (const c of row.cells) {
    const steps = c.runId ? input.passes.get(c.runId) : undefined;
    const k = c.k;
    const spread =
      c.value !== null && c.runId && steps && steps.length > 1 && k !== null
        ? spreadPct(steps.map((s) => atStep(input.passPoints, c.runId!, s, "val/vitabench/")[`val/vitabench/avg@${k}`]).filter((v): v is number => v !== undefined).map((v) => 100 * v))
        : null;
    cells.set(c.key, { value: c.value, partial: false, spread, note: c.note });
  }
  cells.set("avg", row.avg !== null ? { value: row.avg, partial: false, spread: null, note: null } : row.partialAvg !== null ? { value: row.partialAvg, partial: true, spread: null, note: `partial: ${row.avgNote}` } : empty(row.avgNote ?? "no domain has a result"));
  const used = policyRuns.filter((r) => row.cells.some((c) => c.runId === r.id));
  const extra = rows.length > 1 ? `VitaBench: ${row.label} shown; the VitaBench block lists ${rows.slice(1).map((r) => r.label).join(", ")} too` : null;
  return { cells, runs: used, extra };
}

/** Best and second best per column, among rows with the same columns; partial values never. */
function rankRows(rows: Table1Row[]): void {
  const bySignature = new Map<string, Table1Row[]>();
  for (const r of rows) {
    const sig = r.signature.join(",");
    bySignature.set(sig, [...(bySignature.get(sig) ?? []), r]);
  }
  for (const group of bySignature.values()) {
    if (group.length < 2) continue;
    for (const col of TABLE1_COLUMNS) {
      const cells = group.map((r) => r.cells.find((c) => c.id === col.id)!).filter((c) => c.value !== null && !c.partial);
      if (cells.length < 2) continue;
      const distinct = [...new Set(cells.map((c) => c.value!))].sort((a, b) => b - a);
      for (const c of cells) c.rank = c.value === distinct[0] ? 1 : cells.length >= 3 && c.value === distinct[1] ? 2 : null;
    }
  }
}

/** Table 1 of the report's runs, or null when none evaluated BFCL, τ² or VitaBench. */
export function buildTable1(input: Table1Input): Table1 | null {
  const policies = new Map<string, { label: string; policy: string; runs: Table1Run[] }>();
  for (const run of input.runs) {
    if (run.config.kind !== "eval") continue;
    const p = policyOf(run);
    const entry = policies.get(p.key) ?? { label: p.label, policy: p.policy, runs: [] };
    entry.runs.push(run);
    policies.set(p.key, entry);
  }
  const rows: Table1Row[] = [];
  for (const [key, p] of policies) {
    const bfcl = bfclCells(p.runs, input);
    const tau2 = tau2Cells(p.runs, input);
    const vita = vitaCells(p.runs, input);
    if (bfcl.runs.length + tau2.runs.length + vita.runs.length === 0) continue;
    const groups = { bfcl, tau2, vitabench: vita } as const;
    const cells: Table1Cell[] = [];
    for (const g of TABLE1_GROUPS) for (const c of g.columns) cells.push({ id: `${g.key}.${c.key}`, rank: null, ...groups[g.key].cells.get(c.key)! });
    const averages = TABLE1_GROUPS.map((g) => cells.find((c) => c.id === `${g.key}.avg`)!);
    const overall = table1Overall(averages.map((a) => ({ value: a.value, partial: a.partial })));
    const lacking = TABLE1_GROUPS.filter((_, i) => averages[i]!.value === null || averages[i]!.partial).map((g) => g.label);
    cells.push({
      id: TABLE1_OVERALL,
      rank: null,
      value: overall.value === null ? null : round2(overall.value),
      partial: overall.partial,
      spread: null,
      note: overall.value === null ? "no benchmark average" : overall.partial ? `partial: ${lacking.join(", ")} ${lacking.length === 1 ? "has" : "have"} no complete average` : null,
    });
    const provenance = TABLE1_GROUPS.filter((g) => groups[g.key].runs.length > 0).map((g) => sourceOf(g.key, groups[g.key].runs));
    const signature = cells.filter((c) => c.value !== null && !c.partial).map((c) => c.id);
    rows.push({ key, label: p.label, policy: p.policy, cells, signature, provenance: vita.extra ? provenance.map((s) => (s.group === "vitabench" ? { ...s, aggregation: `${s.aggregation}; ${vita.extra}` } : s)) : provenance });
  }
  if (rows.length === 0) return null;
  rankRows(rows);
  return { columns: TABLE1_COLUMNS, rows };
}

export const PARTIAL_MARK = "†";

/** A cell as text: the value (± its spread), "—" without one; a partial average carries PARTIAL_MARK. */
export function table1CellText(c: Table1Cell): string {
  if (c.value === null) return "—";
  return `${c.value.toFixed(2)}${c.spread ? ` ± ${c.spread.std.toFixed(2)}` : ""}${c.partial ? PARTIAL_MARK : ""}`;
}

/** A row's provenance as sentences (the footnote block, the app's details). */
export function provenanceLines(row: Table1Row): string[] {
  return [
    `Policy: ${row.policy}.`,
    ...row.provenance.map((s) => {
      const label = TABLE1_GROUPS.find((g) => g.key === s.group)!.label;
      const parts = [
        `runs ${s.runs.map((r) => `"${r.name}"${r.status === "succeeded" ? "" : ` (${r.status})`}`).join(", ")}`,
        `repeats ${s.repeats}`,
        `trials per task ${s.trialsPerTask}`,
        `sampling ${s.sampling}`,
        ...(s.judge ? [`judge ${s.judge}`] : []),
        ...(s.userSimulator ? [`user simulator ${s.userSimulator}`] : []),
        `data ${s.dataVersion}`,
        `aggregation: ${s.aggregation}`,
      ];
      return `${label}: ${parts.join("; ")}.`;
    }),
  ];
}

/** Notes on cells: why a "—", what a partial average covers, the spread of passes. */
export function table1Notes(table: Table1): string[] {
  return table.rows.flatMap((r) =>
    r.cells
      .filter((c) => c.value === null || c.partial || c.spread)
      .map((c) => {
        const col = TABLE1_COLUMNS.find((x) => x.id === c.id)!;
        const group = col.group ? `${TABLE1_GROUPS.find((g) => g.key === col.group)!.label} ` : "";
        const what = c.value === null ? `— ${c.note ?? "no result"}` : [c.note, c.spread ? `mean over ${spreadText(c.spread, 2)}` : null].filter(Boolean).join("; ");
        return `${r.label}, ${group}${col.label}: ${what}`;
      }),
  );
}

const LEGEND = `Percent. — marks a column without a result (why below); ${PARTIAL_MARK} an average over a part of its columns (not the paper's number, never bolded); best in bold and second best underlined only among rows with the same columns; ± the standard deviation over independent passes. ${TABLE1_AGGREGATION.overall}.`;

const md = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** Table 1 as Markdown: the grouped header, the rows with their marks, the notes, the provenance footnotes. */
export function table1Markdown(table: Table1): string[] {
  const header = ["Policy", ...TABLE1_COLUMNS.map((c) => (c.group ? `${TABLE1_GROUPS.find((g) => g.key === c.group)!.label} ${c.label}` : c.label))];
  const lines = ["## Table 1", "", `| ${header.map(md).join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`];
  for (const r of table.rows) {
    const cells = r.cells.map((c) => {
      const t = md(table1CellText(c));
      return c.rank === 1 ? `**${t}**` : c.rank === 2 ? `<u>${t}</u>` : t;
    });
    lines.push(`| ${[md(r.label), ...cells].join(" | ")} |`);
  }
  lines.push("", LEGEND);
  const notes = table1Notes(table);
  if (notes.length) lines.push("", ...notes.map((n) => `- ${md(n)}`));
  lines.push("", "How each row was made:");
  table.rows.forEach((r, i) => lines.push("", `[${i + 1}] ${md(r.label)}:`, ...provenanceLines(r).map((l) => `- ${md(l)}`)));
  return lines;
}

/** CSV columns for Table 1 (one line per policy). */
export const TABLE1_CSV_HEADER = [
  "policy",
  ...TABLE1_COLUMNS.flatMap((c) => {
    const id = c.id.replace(".", "_");
    return [id, `${id}_mark`];
  }),
  "provenance_policy",
  "provenance_runs",
  "provenance_repeats",
  "provenance_trials_per_task",
  "provenance_sampling",
  "provenance_judge",
  "provenance_user_simulator",
  "provenance_data_version",
  "provenance_aggregation",
  "notes",
];

/** Table 1 as CSV rows: values, each cell's mark (best, second, partial, not run: why), and the provenance columns. */
export function table1CsvRows(table: Table1): string[][] {
  return table.rows.map((r) => {
    const join = (f: (s: Table1Source) => string | null) => r.provenance.map((s) => `${s.group}: ${f(s) ?? "—"}`).join(" | ");
    return [
      r.label,
      ...r.cells.flatMap((c) => [
        c.value === null ? "" : c.value.toFixed(2),
        [c.rank === 1 ? "best" : c.rank === 2 ? "second" : "", c.partial ? "partial" : "", c.value === null ? `not run: ${c.note ?? ""}` : "", c.spread ? `std ${c.spread.std.toFixed(2)} over ${c.spread.passes} passes` : ""].filter(Boolean).join("; "),
      ]),
      r.policy,
      join((s) => s.runs.map((x) => x.name).join(", ")),
      join((s) => s.repeats),
      join((s) => s.trialsPerTask),
      join((s) => s.sampling),
      join((s) => s.judge),
      join((s) => s.userSimulator),
      join((s) => s.dataVersion),
      [...r.provenance.map((s) => `${s.group}: ${s.aggregation}`), TABLE1_AGGREGATION.overall].join(" | "),
      r.cells.filter((c) => c.note && (c.value === null || c.partial)).map((c) => `${c.id}: ${c.note}`).join("; "),
    ];
  });
}

/** Table 1 as a booktabs table in the paper's layout: grouped header, best bold, second underlined, footnotes. */
export function table1Latex(table: Table1, escape: (text: string) => string): string[] {
  let col = 2;
  const groupHeads: string[] = [];
  const rules: string[] = [];
  for (const g of TABLE1_GROUPS) {
    groupHeads.push(`\\multicolumn{${g.columns.length}}{c}{${g.key === "tau2" ? "$\\tau^2$-Bench" : escape(g.label)}}`);
    rules.push(`\\cmidrule(lr){${col}-${col + g.columns.length - 1}}`);
    col += g.columns.length;
  }
  const cell = (c: Table1Cell) => {
    if (c.value === null) return "--";
    const v = c.value.toFixed(2);
    const marked = c.rank === 1 ? `\\textbf{${v}}` : c.rank === 2 ? `\\underline{${v}}` : v;
    return `${marked}${c.spread ? `{\\scriptsize$\\pm$${c.spread.std.toFixed(2)}}` : ""}${c.partial ? "\\textsuperscript{\\dag}" : ""}`;
  };
  const notes = table1Notes(table);
  const footnotes = table.rows.map((r, i) => `[${i + 1}] ${escape(r.label)}: ${provenanceLines(r).map(escape).join(" ")}`);
  return [
    "\\begin{table*}[t]",
    "\\centering",
    "\\caption{Table 1 (percent; -- no result, \\dag{} partial average, best in bold and second best underlined among rows with the same columns)}",
    `\\resizebox{\\textwidth}{!}{\\begin{tabular}{l${"r".repeat(TABLE1_COLUMNS.length)}}`,
    "\\toprule",
    ` & ${groupHeads.join(" & ")} & \\\\`,
    rules.join(" "),
    `Policy & ${TABLE1_COLUMNS.map((c) => escape(c.label)).join(" & ")} \\\\`,
    "\\midrule",
    ...table.rows.map((r, i) => `${escape(r.label)}\\textsuperscript{[${i + 1}]} & ${r.cells.map(cell).join(" & ")} \\\\`),
    "\\bottomrule",
    "\\end{tabular}}",
    `\\par\\smallskip{\\footnotesize ${escape(LEGEND)}${notes.length ? ` ${notes.map(escape).join("; ")}.` : ""}}`,
    `\\par\\smallskip{\\footnotesize ${footnotes.join(" ")}}`,
    "\\end{table*}",
  ];
}
