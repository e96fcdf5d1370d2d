/**
 * Studies: a group of runs that differ only in a seed (data.seed) or in a small grid of named settings
 * (rollout.paradigm ∈ {rehearse, environment} × policy.model ∈ {…}). What the server, the CLI and the
 * pages agree on: the grid's cells, each run's config, the names, and the statistics across seeds. Pure.
 */
import { runSettings } from "../contracts/run-settings";
import { nearestNames } from "./nearest";

/** One dimension of a grid: a setting (dotted key, as `--set` names it) and the values it takes. */
export interface GridAxis {
  setting: string;
  values: unknown[];
}

/** One cell of a grid: a value per axis, in axis order. */
export interface GridCell {
  /** Index of the value taken on each axis. */
  at: number[];
  /** setting → value. */
  values: Record<string, unknown>;
}

/** The seed setting a study varies. */
export const SEED_SETTING = "data.seed";

/** Most values one axis of a grid may take. */
export const MAX_AXIS_VALUES = 16;
/** Most axes of a grid. */
export const MAX_AXES = 4;

/** Keys a grid may vary: every setting and the groups that are set whole (policy, reward.judge, …), as `--set` takes them. */
export function gridSettingKeys(): Set<string> {
  const keys = new Set<string>();
  for (const s of runSettings()) for (let i = 1; i <= s.path.length; i++) keys.add(s.path.slice(0, i).join("."));
  keys.delete("schemaVersion");
  return keys;
}

/** Why an axis's setting cannot be varied (null: it can). */
export function gridSettingProblem(setting: string, known: Set<string> = gridSettingKeys()): string | null {
  if (setting === SEED_SETTING) return "seeds are the study's own axis: give seeds instead";
  if (setting === "kind") return "a study's runs are all of one kind (the base config's)";
  if (known.has(setting)) return null;
  const near = nearestNames(setting, known);
  return `no such run setting${near.length ? ` (did you mean ${near.join(", ")}?)` : ""}`;
}

/** Every cell of the grid, the first axis slowest (no axes: one empty cell). */
export function gridCells(axes: readonly GridAxis[]): GridCell[] {
  let cells: GridCell[] = [{ at: [], values: {} }];
  for (const axis of axes) {
    cells = cells.flatMap((c) => axis.values.map((v, i) => ({ at: [...c.at, i], values: { ...c.values, [axis.setting]: v } })));
  }
  return cells;
}

/** How many runs a study launches. */
export function studySize(axes: readonly GridAxis[], seeds: number): number {
  return axes.reduce((n, a) => n * a.values.length, 1) * seeds;
}

/** The seeds of a study: a count n gives the base seed and the n − 1 after it; a list is taken as it is. */
export function studySeeds(baseSeed: number, seeds: number | number[]): number[] {
  return Array.isArray(seeds) ? seeds : Array.from({ length: seeds }, (_, i) => baseSeed + i);
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The values of a grid axis as a person types them (the CLI's --grid, the form): comma-separated, each
 * JSON when it parses as JSON (8, 0.5, true, {"node":…}) and text otherwise; a JSON list stands for the
 * values themselves (`[["a"],["b"]]`, where each value is itself a list).
 */
export function parseValueList(text: string): unknown[] {
  const trimmed = text.trim();
  const json = trimmed.startsWith("[") ? jsonOrText(trimmed) : undefined;
  if (Array.isArray(json)) return json;
  return trimmed.split(",").map((v) => v.trim()).filter((v) => v !== "").map(jsonOrText);
}

/** A value as a name shows it: text as is, anything else as JSON. */
export function valueText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** A cell in words, by the last segment of each setting: "paradigm=rehearse, model=Qwen/Qwen3-8B" ("" for no grid). */
export function cellLabel(values: Record<string, unknown>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k.slice(k.lastIndexOf(".") + 1)}=${valueText(v)}`)
    .join(", ");
}

/** The stable key of a cell (its values as JSON, axis order). */
export function cellKey(values: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(values));
}

/** A copy of `config` with `value` at the dotted `setting` (objects created on the way). */
export function withSetting(config: Record<string, unknown>, setting: string, value: unknown): Record<string, unknown> {
  const root = structuredClone(config);
  const path = setting.split(".");
  let cur = root;
  for (const k of path.slice(0, -1)) {
    if (typeof cur[k] !== "object" || cur[k] === null || Array.isArray(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[path[path.length - 1]!] = structuredClone(value);
  return root;
}

/** The config of one run of a study: the base, the cell's values, the seed. */
export function cellConfig(base: Record<string, unknown>, cell: Record<string, unknown>, seed: number | null): Record<string, unknown> {
  let config = base;
  for (const [setting, value] of Object.entries(cell)) config = withSetting(config, setting, value);
  return seed === null ? config : withSetting(config, SEED_SETTING, seed);
}

/** The name of a study's run: the study, its cell, its seed. */
export function studyRunName(study: string, cell: Record<string, unknown>, seed: number): string {
  return [study, cellLabel(cell), `seed ${seed}`].filter(Boolean).join(" · ").slice(0, 200);
}

/** Mean, sample standard deviation (0 for one value) and n of some numbers (null when there are none). */
export function spread(values: readonly number[]): { mean: number; std: number; n: number; min: number; max: number } | null {
  const xs = values.filter((v) => Number.isFinite(v));
  if (xs.length === 0) return null;
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const std = xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, std, n: xs.length, min: Math.min(...xs), max: Math.max(...xs) };
}

/**
 * Which launch problems of a study's cells belong where: a problem every cell has is the base config's;
 * one that exactly the cells taking value j of axis i have is that value's (`grid.<i>.values.<j>`); any
 * other is the combination's, said with the first cell that has it.
 */
export function attributeProblems<P extends { path: string; message: string }>(
  axes: readonly GridAxis[],
  cells: readonly GridCell[],
  problems: readonly P[][],
): { base: P[]; values: { axis: number; value: number; problem: P }[]; cells: { cell: number; problem: P }[] } {
  const key = (p: P) => JSON.stringify([p.path, p.message]);
  const where = new Map<string, { problem: P; cells: Set<number> }>();
  problems.forEach((list, c) =>
    list.forEach((p) => {
      const k = key(p);
      if (!where.has(k)) where.set(k, { problem: p, cells: new Set() });
      where.get(k)!.cells.add(c);
    }),
  );
  const out = { base: [] as P[], values: [] as { axis: number; value: number; problem: P }[], cells: [] as { cell: number; problem: P }[] };
  for (const { problem, cells: had } of where.values()) {
    if (had.size === cells.length) {
      out.base.push(problem);
      continue;
    }
    let placed = false;
    axes.forEach((axis, i) =>
      axis.values.forEach((_, j) => {
        if (placed) return;
        const taking = cells.map((c, n) => (c.at[i] === j ? n : -1)).filter((n) => n >= 0);
        if (taking.length === had.size && taking.every((n) => had.has(n))) {
          out.values.push({ axis: i, value: j, problem });
          placed = true;
        }
      }),
    );
    if (!placed) out.cells.push({ cell: Math.min(...had), problem });
  }
  return out;
}
