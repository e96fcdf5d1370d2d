/**
 * Structural JSON diff for side-by-side display: walks both values together and emits aligned rows
 * (left text | right text) with a kind per row. Objects are matched by key (left order, then keys only on
 * the right), arrays by position. Depth is capped so adversarial model output stays cheap.
 */

export type DiffKind = "same" | "changed" | "added" | "removed";

export interface DiffRow {
  kind: DiffKind;
  /** Dotted path of the value this row shows ("" for the root). */
  path: string;
  depth: number;
  left: string | null;
  right: string | null;
  /** An opening or closing bracket row of an object or array. */
  container?: boolean;
}

export interface DiffSummary {
  same: number;
  changed: number;
  added: number;
  removed: number;
}

export interface JsonDiff {
  rows: DiffRow[];
  /** Leaf-level counts (a whole added/removed subtree counts its leaves). */
  summary: DiffSummary;
  /** Both sides were parsed as JSON (otherwise the raw strings were compared as one value). */
  parsed: { left: boolean; right: boolean };
}

const MAX_DEPTH = 40;
const MISSING = Symbol("missing");
type Value = unknown | typeof MISSING;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function parseJsonLoose(text: string | null | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text == null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function scalar(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "null";
  } catch {
    return String(v);
  }
}

function label(key: string | number | null): string {
  return key === null ? "" : typeof key === "number" ? "" : `${JSON.stringify(key)}: `;
}

function join(path: string, key: string | number): string {
  return path === "" ? String(key) : `${path}.${key}`;
}

export function deepEqualJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > MAX_DEPTH) return scalar(a) === scalar(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqualJson(x, b[i], depth + 1));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqualJson(a[k], b[k], depth + 1));
  }
  return false;
}

/** Rows of one side only (a subtree present on one side), all of the same kind. */
function oneSide(value: unknown, key: string | number | null, path: string, depth: number, kind: "added" | "removed", out: DiffRow[], summary: DiffSummary) {
  const put = (text: string, p: string, d: number, container = false) =>
    out.push({ kind, path: p, depth: d, left: kind === "removed" ? text : null, right: kind === "added" ? text : null, ...(container ? { container } : {}) });
  const walk = (v: unknown, k: string | number | null, p: string, d: number) => {
    if (d < MAX_DEPTH && (Array.isArray(v) || isObject(v))) {
      const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
      if (entries.length === 0) {
        put(`${label(k)}${Array.isArray(v) ? "[]" : "{}"}`, p, d);
        summary[kind]++;
        return;
      }
      put(`${label(k)}${Array.isArray(v) ? "[" : "{"}`, p, d, true);
      for (const [ck, cv] of entries) walk(cv, ck, join(p, ck), d + 1);
      put(Array.isArray(v) ? "]" : "}", p, d, true);
      return;
    }
    put(`${label(k)}${scalar(v)}`, p, d);
    summary[kind]++;
  };
  walk(value, key, path, depth);
}

function walk(a: Value, b: Value, key: string | number | null, path: string, depth: number, out: DiffRow[], summary: DiffSummary) {
  if (a === MISSING) return oneSide(b, key, path, depth, "added", out, summary);
  if (b === MISSING) return oneSide(a, key, path, depth, "removed", out, summary);
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects = isObject(a) && isObject(b);
  if (depth < MAX_DEPTH && (bothArrays || bothObjects)) {
    const open = bothArrays ? "[" : "{";
    const close = bothArrays ? "]" : "}";
    const same = deepEqualJson(a, b);
    const kind: DiffKind = same ? "same" : "changed";
    out.push({ kind, path, depth, left: `${label(key)}${open}`, right: `${label(key)}${open}`, container: true });
    if (bothArrays) {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < Math.max(la.length, lb.length); i++) {
        walk(i < la.length ? la[i] : MISSING, i < lb.length ? lb[i] : MISSING, i, join(path, i), depth + 1, out, summary);
      }
    } else {
      const oa = a as Record<string, unknown>;
      const ob = b as Record<string, unknown>;
      const keys = [...Object.keys(oa), ...Object.keys(ob).filter((k) => !Object.prototype.hasOwnProperty.call(oa, k))];
      for (const k of keys) {
        const has = (o: Record<string, unknown>) => Object.prototype.hasOwnProperty.call(o, k);
        walk(has(oa) ? oa[k] : MISSING, has(ob) ? ob[k] : MISSING, k, join(path, k), depth + 1, out, summary);
      }
    }
    out.push({ kind, path, depth, left: close, right: close, container: true });
    return;
  }
  const aComposite = Array.isArray(a) || isObject(a);
  const bComposite = Array.isArray(b) || isObject(b);
  if (deepEqualJson(a, b)) {
    const text = `${label(key)}${scalar(a)}`;
    out.push({ kind: "same", path, depth, left: text, right: text });
    summary.same++;
  } else if (aComposite || bComposite) {
    // A type change involving a container: show the whole left subtree removed and the right one added.
    oneSide(a, key, path, depth, "removed", out, summary);
    oneSide(b, key, path, depth, "added", out, summary);
  } else {
    out.push({ kind: "changed", path, depth, left: `${label(key)}${scalar(a)}`, right: `${label(key)}${scalar(b)}` });
    summary.changed++;
  }
}

/** Diff two already-parsed JSON values. */
export function diffValues(left: unknown, right: unknown): { rows: DiffRow[]; summary: DiffSummary } {
  const rows: DiffRow[] = [];
  const summary: DiffSummary = { same: 0, changed: 0, added: 0, removed: 0 };
  walk(left, right, null, "", 0, rows, summary);
  return { rows, summary };
}

/** Diff two tool-response strings; a side that is not JSON is compared as one string value. */
export function diffJsonText(left: string, right: string): JsonDiff {
  const a = parseJsonLoose(left);
  const b = parseJsonLoose(right);
  const { rows, summary } = diffValues(a.ok ? a.value : left, b.ok ? b.value : right);
  return { rows, summary, parsed: { left: a.ok, right: b.ok } };
}

/** Paths that differ (changed, added or removed leaves), for a compact textual summary. */
export function changedPaths(diff: { rows: DiffRow[] }): string[] {
  const seen = new Set<string>();
  for (const r of diff.rows) {
    if (r.kind !== "same" && !r.container) seen.add(r.path || "(root)");
  }
  return [...seen];
}
