/**
 * `envace studies …`: the grid argument (`--grid rollout.paradigm=rehearse,environment`), the seeds
 * argument, and the text views of a study (its groups and runs, its per-benchmark table). Pure.
 */
import { gridSettingProblem, parseValueList } from "../lib/studies";
import { formatMetric } from "./progress";
import { UsageError } from "./overrides";

export interface GridAxisArg {
  setting: string;
  values: unknown[];
}

/**
 * `--grid key=v1,v2,…`: values are JSON when they parse as JSON (8, 0.5, true, {"node":…}), else text; a
 * JSON list stands for the values themselves (`--grid 'data.instanceIds=[["a"],["b"]]'`, where a value is a list).
 * A key that is no setting (or the seed, which --seeds varies) is refused here, before anything is sent.
 */
export function parseGridArg(arg: string): GridAxisArg {
  const eq = arg.indexOf("=");
  if (eq <= 0) throw new UsageError(`--grid ${arg}: expected setting=value,value…, e.g. --grid rollout.paradigm=rehearse,environment`);
  const setting = arg.slice(0, eq).trim();
  const problem = gridSettingProblem(setting);
  if (problem) throw new UsageError(`--grid ${setting}: ${problem}; \`envace runs settings\` lists the settings`);
  const values = parseValueList(arg.slice(eq + 1));
  if (values.length === 0) throw new UsageError(`--grid ${setting}: give at least one value`);
  return { setting, values };
}

/** `--seeds 4` (four seeds from the config's data.seed on) or `--seeds 0,3,7` (exactly these). */
export function parseSeedsArg(text: string): number | number[] {
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const list = text.split(",").map((s) => s.trim());
  if (list.length > 1 && list.every((s) => /^\d+$/.test(s))) return list.map(Number);
  throw new UsageError(`--seeds ${text}: expected a count (4) or a comma list of seeds (0,3,7)`);
}

interface Stat {
  mean: number;
  std: number;
  n: number;
}

export interface StudyTableView {
  step: number | "latest";
  groups: { label: string; runs: number }[];
  rows: { label: string; cells: { n: number; runs: number; reward: Stat | null; success: Stat | null }[] }[];
}

const pm = (s: Stat | null, percent = false) => {
  if (!s) return "—";
  const f = (v: number) => (percent ? `${formatMetric(100 * v)}%` : formatMetric(v));
  return `${f(s.mean)} ± ${f(s.std)}`;
};

/** The per-benchmark table as text: one line per benchmark and group, success and reward as mean ± std (n). */
export function tableLines(table: StudyTableView): string[] {
  if (table.rows.length === 0) return ["No evaluations yet."];
  const lines = [`Evaluations (${table.step === "latest" ? "each run's latest" : `step ${table.step}`}; mean ± std across seeds):`];
  for (const row of table.rows) {
    lines.push(`  ${row.label}`);
    row.cells.forEach((cell, i) => {
      const g = table.groups[i]!;
      lines.push(`    ${g.label.padEnd(30)} success ${pm(cell.success, true).padEnd(18)} reward ${pm(cell.reward).padEnd(16)} n=${cell.n}/${cell.runs}`);
    });
  }
  return lines;
}

export interface StudyRunView {
  id: string;
  name: string;
  status: string;
  progressStep: number;
  totalSteps: number;
}

/** How far a study is: "3 of 4 runs finished (3 succeeded), 1 running". */
export function studyProgress(runs: StudyRunView[]): string {
  const by = (s: string) => runs.filter((r) => r.status === s).length;
  const finished = by("succeeded") + by("failed") + by("cancelled");
  const outcome = [["succeeded", by("succeeded")], ["failed", by("failed")], ["cancelled", by("cancelled")]].filter(([, n]) => n).map(([s, n]) => `${n} ${s}`).join(", ");
  const open = [["running", by("running")], ["queued", by("queued")]].filter(([, n]) => n).map(([s, n]) => `${n} ${s}`).join(", ");
  return `${finished} of ${runs.length} runs finished${outcome ? ` (${outcome})` : ""}${open ? `, ${open}` : ""}`;
}

/** The exit code of a finished study's watch: 0 all succeeded, 2 one failed, 3 one was cancelled (none failed). */
export function studyExitCode(runs: StudyRunView[]): number {
  if (runs.some((r) => r.status === "failed")) return 2;
  if (runs.some((r) => r.status === "cancelled")) return 3;
  return 0;
}
