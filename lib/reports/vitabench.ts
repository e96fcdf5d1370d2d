/**
 * A report's VitaBench group in the layout of the paper's Table 1: Cross, Deliv., Inst., OTA, Avg (the mean of the
 * four). A VitaBench evaluation run evaluates one domain in one language, so a row gathers the runs of one policy
 * (and one judge — results depend on it) in one language, a domain per run; each cell is upstream's average@k (the
 * mean reward over the tasks, k = the trials per task) in percent, read from the metric points the run stored
 * (`val/vitabench/avg@k`, pass@k and pass^k beside it: worker/envs/vitabench/environment.ts). A domain without a run
 * is "—" with the reason, never 0; Avg needs all four, else it is "—" with the mean over those that ran in brackets.
 * Pure: the reports service feeds it runs and points; the page and every export render it.
 */
import type { RunConfig } from "../../contracts/run-config";
import { parseVitaDataset, VITA_REPORT_COLUMNS, VITA_SUPPLIED_FILES, VITA_TASKS_PER_FILE, vitaTaskFile, type VitaDomainKey, type VitaLanguage } from "../vitabench/datasets";
import type { MetricPointRow } from "./bfcl";
import { mdText } from "./markdown-safe";

export const VITA_METRIC_PREFIX = "val/vitabench/";

export interface VitaRunInput {
  id: string;
  name: string;
  status: string;
  /** The run's parsed config (runs whose config does not parse are left out by the caller). */
  config: RunConfig;
  /** 'run "x" step 40' when the run evaluated a training run's checkpoint: a policy of its own, never merged with the base model's. */
  checkpoint?: string | null;
}

export interface VitaCell {
  key: VitaDomainKey;
  label: string;
  /** average@k in percent; null where the domain has no result in this row. */
  value: number | null;
  passAtK: number | null;
  passHatK: number | null;
  k: number | null;
  /** Tasks and trials the value is computed over (errored trials left out), and the errored ones. */
  tasks: number;
  trials: number;
  errored: number;
  runId: string | null;
  runName: string | null;
  /** Why there is no value, or what the reader must know about it. */
  note: string | null;
}

export interface VitaRow {
  key: string;
  /** "model on node" of the policy. */
  policy: string;
  judge: string;
  lang: VitaLanguage;
  label: string;
  cells: VitaCell[];
  /** Mean of the four domains, in percent, when all four have a value. */
  avg: number | null;
  /** Mean over the domains that have a value, when some but not all do (not comparable with the paper's Avg). */
  partialAvg: number | null;
  avgNote: string | null;
}

export interface VitaTable {
  columns: { key: VitaDomainKey | "avg"; label: string }[];
  rows: VitaRow[];
  /** k when every cell with a value shares it. */
  k: number | null;
}

const round2 = (x: number) => Math.round(x * 10_000) / 100;
const nodeModel = (m: { node: string; model: string } | undefined) => (m ? `${m.model} on ${m.node}` : "no judge");
const LANG: Record<VitaLanguage, string> = { zh: "Chinese", en: "English" };

/** The largest k of a run's `val/vitabench/avg@k` points (its trials per task). */
function largestK(metrics: Record<string, number>): number | null {
  let k: number | null = null;
  for (const key of Object.keys(metrics)) {
    const m = /^val\/vitabench\/avg@(\d+)$/.exec(key);
    if (m && (k === null || Number(m[1]) > k)) k = Number(m[1]);
  }
  return k;
}

function notRunNote(domain: VitaDomainKey, lang: VitaLanguage): string {
  const file = vitaTaskFile(domain, lang);
  const shipped = !VITA_SUPPLIED_FILES.includes(file);
  return shipped
    ? `no VitaBench ${domain} (${lang}) evaluation of this policy in the report`
    : `no VitaBench ${domain} (${lang}) evaluation of this policy in the report; its task file ${file} is not shipped with the product (4 MiB or larger): supply it in $ENVACE_DATA_DIR/vitabench to run vitabench:${domain}/${lang}`;
}

/** The VitaBench group of the runs' VitaBench evaluations (their latest evaluation step), or null when there is none. */
export function buildVitaTable(runs: readonly VitaRunInput[], points: readonly MetricPointRow[]): VitaTable | null {
  const groups = new Map<string, { policy: string; judge: string; lang: VitaLanguage; runs: { run: VitaRunInput; domain: VitaDomainKey }[] }>();
  for (const run of runs) {
    if (run.config.kind !== "eval") continue;
    const parsed = parseVitaDataset(run.config.data.dataset);
    if (!parsed.ok) continue;
    const base = nodeModel(run.config.policy);
    const policy = run.checkpoint ? `checkpoint of ${run.checkpoint} (${base})` : base;
    const judge = nodeModel(run.config.reward.judge);
    const key = JSON.stringify([policy, judge, parsed.dataset.lang]);
    const g = groups.get(key) ?? { policy, judge, lang: parsed.dataset.lang, runs: [] };
    g.runs.push({ run, domain: parsed.dataset.domain });
    groups.set(key, g);
  }
  if (groups.size === 0) return null;
  const judges = new Set([...groups.values()].map((g) => g.judge));
  const ks = new Set<number>();
  const rows: VitaRow[] = [...groups.entries()].map(([key, g]) => {
    const cells = VITA_REPORT_COLUMNS.map(({ key: domain, label }): VitaCell => {
      const mine = g.runs.filter((r) => r.domain === domain);
      const empty = { key: domain, label, value: null, passAtK: null, passHatK: null, k: null, tasks: 0, trials: 0, errored: 0 };
      if (mine.length === 0) return { ...empty, runId: null, runName: null, note: notRunNote(domain, g.lang) };
      const { run } = mine[0]!;
      const others = mine.slice(1).map((r) => r.run.name);
      const also = others.length ? `; also evaluated by ${others.map((n) => `"${n}"`).join(", ")} (the first run listed is shown)` : "";
      const own = points.filter((p) => p.runId === run.id && p.key.startsWith(VITA_METRIC_PREFIX));
      if (own.length === 0) return { ...empty, runId: run.id, runName: run.name, note: `run "${run.name}" (${run.status}) has no VitaBench results yet${also}` };
      const step = Math.max(...own.map((p) => p.step));
      const m = Object.fromEntries(own.filter((p) => p.step === step).map((p) => [p.key, p.value]));
      const k = largestK(m);
      const metric = (name: string) => m[`${VITA_METRIC_PREFIX}${name}`];
      const avgAtK = k === null ? undefined : metric(`avg@${k}`);
      const errored = metric("errored") ?? 0;
      const tasks = metric("tasks") ?? 0;
      if (avgAtK === undefined) return { ...empty, runId: run.id, runName: run.name, errored, note: `run "${run.name}" scored no trial${errored ? ` (${errored} errored)` : ""}${also}` };
      ks.add(k!);
      const notes = [errored ? `${errored} trial(s) errored and are left out` : "", tasks && tasks < VITA_TASKS_PER_FILE ? `${tasks} of the domain's ${VITA_TASKS_PER_FILE} tasks` : ""].filter(Boolean).join("; ");
      return {
        key: domain,
        label,
        value: round2(avgAtK),
        passAtK: metric(`pass@${k}`) === undefined ? null : round2(metric(`pass@${k}`)!),
        passHatK: metric(`pass^${k}`) === undefined ? null : round2(metric(`pass^${k}`)!),
        k,
        tasks,
        trials: metric("trials") ?? 0,
        errored,
        runId: run.id,
        runName: run.name,
        note: notes || also ? `${notes}${also}`.replace(/^; /, "") : null,
      };
    });
    const present = cells.filter((c) => c.value !== null);
    const missing = cells.filter((c) => c.value === null).map((c) => c.label);
    const mean = present.length ? round2(present.reduce((s, c) => s + c.value!, 0) / present.length / 100) : null;
    const all = present.length === cells.length;
    return {
      key,
      policy: g.policy,
      judge: g.judge,
      lang: g.lang,
      label: `${g.policy} · ${LANG[g.lang]}${judges.size > 1 ? ` · judge ${g.judge}` : ""}`,
      cells,
      avg: all ? mean : null,
      partialAvg: all ? null : mean,
      avgNote: all ? null : present.length ? `mean of ${present.map((c) => c.label).join(", ")} only: ${missing.join(", ")} not run` : "no domain has a result",
    };
  });
  return {
    columns: [...VITA_REPORT_COLUMNS.map((c) => ({ key: c.key, label: c.label })), { key: "avg", label: "Avg" }],
    rows,
    k: ks.size === 1 ? [...ks][0]! : null,
  };
}

/** A cell as text: the value, or "—". */
export const vitaCellText = (c: { value: number | null }) => (c.value === null ? "—" : c.value.toFixed(2));
/** Avg as text: the mean, or "—" with the partial mean in brackets. */
export const vitaAvgText = (r: VitaRow) => (r.avg !== null ? r.avg.toFixed(2) : r.partialAvg !== null ? `— (${r.partialAvg.toFixed(2)} partial)` : "—");

/** The notes under the table: why each "—", and what a value covers. */
export function vitaNotes(table: VitaTable): string[] {
  return table.rows.flatMap((r) => [...r.cells.filter((c) => c.note).map((c) => `${r.label}, ${c.label}: ${c.note}`), ...(r.avgNote ? [`${r.label}, Avg: ${r.avgNote}`] : [])]);
}

const kLabel = (t: VitaTable) => (t.k === null ? "k" : String(t.k));

/** Policy and judge names are users' text: literal inline Markdown, as the rest of the export (markdown-safe.ts). */
const md = mdText;

export function vitaMarkdown(table: VitaTable): string[] {
  const header = ["Policy", ...table.columns.map((c) => c.label)];
  const lines = ["## VitaBench", "", `| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`];
  for (const r of table.rows) lines.push(`| ${[md(r.label), ...r.cells.map((c) => vitaCellText(c)), md(vitaAvgText(r))].join(" | ")} |`);
  lines.push("", `Avg@${kLabel(table)} in percent (upstream's average@k: the mean reward over the tasks, reward 1 when the judge finds every rubric met). Avg is the mean of the four domains; — marks a domain not run.`);
  const notes = vitaNotes(table);
  if (notes.length) lines.push("", ...notes.map((n) => `- ${md(n)}`));
  return lines;
}

const two = (x: number | null) => (x === null ? "" : x.toFixed(2));

/** CSV rows in the result rows' layout (run, "VitaBench <column>", k, instances, avg_at_k, pass_at_k, partial_avg_at_k, best, note). */
export function vitaCsvRows(table: VitaTable): string[][] {
  return table.rows.flatMap((r) => [
    ...r.cells.map((c) => [r.label, `VitaBench ${c.label}`, c.k === null ? "" : String(c.k), c.tasks ? String(c.tasks) : "", two(c.value), two(c.passAtK), "", "", c.note ?? ""]),
    [r.label, "VitaBench Avg", "", "", two(r.avg), "", two(r.partialAvg), "", r.avgNote ?? ""],
  ]);
}

export function vitaLatex(table: VitaTable, escape: (text: string) => string): string[] {
  const notes = vitaNotes(table);
  return [
    "\\begin{table}[t]",
    "\\centering",
    `\\caption{VitaBench (Avg@${kLabel(table)} in percent; -- marks a domain not run, Avg with the mean over the domains that ran in brackets)}`,
    `\\begin{tabular}{l${"r".repeat(table.columns.length)}}`,
    "\\toprule",
    `Policy & ${table.columns.map((c) => escape(c.label)).join(" & ")} \\\\`,
    "\\midrule",
    ...table.rows.map((r) => `${escape(r.label)} & ${[...r.cells.map((c) => (c.value === null ? "--" : c.value.toFixed(2))), r.avg !== null ? r.avg.toFixed(2) : r.partialAvg !== null ? `-- (${r.partialAvg.toFixed(2)})` : "--"].join(" & ")} \\\\`),
    "\\bottomrule",
    "\\end{tabular}",
    ...(notes.length ? [`\\par\\smallskip{\\footnotesize ${notes.map(escape).join("; ")}.}`] : []),
    "\\end{table}",
  ];
}
