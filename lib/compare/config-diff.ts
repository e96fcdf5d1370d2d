/**
 * Config comparison: flatten nested configs to dotted paths and keep only the paths where the runs
 * disagree. Pure (used by the compare API and its tests). Arrays are compared as whole values.
 */
export type ConfigValue = string | number | boolean | null | ConfigValue[] | { [k: string]: ConfigValue };

/** A path missing from a config. */
export const ABSENT = undefined;

export interface ConfigDiffRow {
  path: string;
  /** One value per config, in input order; `undefined` where the path is absent. */
  values: (ConfigValue | undefined)[];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Leaf values of a nested object by dotted path; empty objects count as a leaf `{}`. */
export function flattenConfig(value: unknown, prefix = "", out = new Map<string, ConfigValue>()): Map<string, ConfigValue> {
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0 && prefix) out.set(prefix, {});
    for (const [k, v] of entries) flattenConfig(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out.set(prefix, value as ConfigValue);
  }
  return out;
}

/** Stable JSON (sorted keys) so `{a,b}` and `{b,a}` compare equal. */
function canonical(v: unknown): string {
  if (v === undefined) return "\u0000absent";
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isPlainObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** Paths whose values differ between any two of the configs, sorted by path. */
export function diffConfigs(configs: unknown[]): ConfigDiffRow[] {
  const flat = configs.map((c) => flattenConfig(c));
  const paths = new Set<string>();
  for (const f of flat) for (const p of f.keys()) paths.add(p);
  const rows: ConfigDiffRow[] = [];
  for (const path of [...paths].sort()) {
    const values = flat.map((f) => (f.has(path) ? f.get(path) : ABSENT));
    const first = canonical(values[0]);
    if (values.some((v) => canonical(v) !== first)) rows.push({ path, values });
  }
  // An empty object in one config where another has nested keys is already told by the nested rows.
  const isEmptyObject = (v: unknown) => isPlainObject(v) && Object.keys(v).length === 0;
  return rows.filter(
    (row) =>
      !(row.values.every((v) => v === undefined || isEmptyObject(v)) && rows.some((other) => other.path.startsWith(`${row.path}.`))),
  );
}

/** How a config value reads in a table cell. */
export function formatConfigValue(v: ConfigValue | undefined): string {
  if (v === undefined) return "(absent)";
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}
