/**
 * Rehearsal fidelity: how close a rehearsed tool response is to the real one (shadow execution, the
 * fidelity probe, tau2 evaluation). docs/FIDELITY.md defines the score with worked examples.
 *
 * Each side is classified first:
 * - an *invalid rehearsal* (the rehearse role broke its output format: one of the rehearse parse error
 *   codes, or the generation failed) is no prediction at all: score 0;
 * - an *error*: an `error_tool_call` object (reference, shop, simulators), an object with a non-empty
 *   `error` member (the reference's external-simulator failure, BFCL) or a text starting with `Error:`
 *   (tau2); an environment that knows its own error flag passes it as `realError`;
 * - otherwise a *value*: JSON, or the text itself when it is not JSON.
 * Both errors → score 1 (the imagined world refused the call as the real one did); one error → 0;
 * two values → structural similarity in [0, 1]: scalars equal or not (numbers by value, so 7 = 7.0),
 * multi-word texts by word overlap (F1), objects as the mean over the union of keys, lists by an optimal
 * one-to-one pairing of elements by content (order carries no meaning) over the longer list's length,
 * and a bare scalar against a one-member wrapper (`"sara_doe_496"` vs `{"user_id": "sara_doe_496"}`)
 * by the wrapped value. `exact` stays beside it: identical values (list order counts) or identical text.
 */
import { pyLoads, rehearseErrorCodes } from "./parsers";
import { toPlainJson } from "../../lib/python/json";

/** One field where the rehearsed response differs from the real one. */
export interface Divergence {
  /** `$` is the whole response, `.key` an object member, `[]` any element of a list (matched by content). */
  path: string;
  /** Compact JSON of the rehearsed / real value (cut to 120 characters), a marker such as `error NOT_FOUND`, or null when absent. */
  rehearsed: string | null;
  real: string | null;
}

export type FidelityOutcome = "values" | "both_errors" | "error_mismatch" | "invalid_rehearsal";

export interface Fidelity {
  /** The fidelity score, 0..1 (see the file comment). */
  score: number;
  /** Identical: equal JSON values (numbers by value, key order ignored, list order kept) or equal text. */
  exact: boolean;
  /** Both sides are errors or both are values (an invalid rehearsal never agrees). */
  errorAgreement: boolean;
  outcome: FidelityOutcome;
  /** The first divergences found (at most MAX_DIVERGENCES), for the world-model view. */
  divergences: Divergence[];
}

export const MAX_DIVERGENCES = 12;
const MAX_VALUE_CHARS = 120;
const MAX_DEPTH = 32;
/** Lists longer than this pair elements greedily instead of optimally (cost O(n·m) instead of O(n³)). */
const MAX_OPTIMAL_PAIRING = 200;

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

interface Side {
  kind: "value" | "error" | "invalid";
  value: unknown;
  /** The content was not JSON (or was a JSON string): compared as text. */
  text: boolean;
  /** Error code or first words, for divergence markers. */
  label?: string;
}

const GENERATION_FAILED = "Error when executing tool:";
const TEXT_ERROR = /^error\s*:/i;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A JSON value or tool text is an error payload (any environment's convention). */
export function isErrorValue(value: unknown): boolean {
  return errorLabel(value) !== undefined;
}

function errorLabel(value: unknown): string | undefined {
  if (typeof value === "string") return TEXT_ERROR.test(value.trim()) ? value.trim().slice(0, 60) : undefined;
  if (!isPlainObject(value)) return undefined;
  if (Object.prototype.hasOwnProperty.call(value, "error_tool_call")) {
    const e = value.error_tool_call;
    if (isPlainObject(e) && typeof e.code === "string") return e.code;
    return typeof e === "string" ? e.slice(0, 60) : "error_tool_call";
  }
  if (Object.prototype.hasOwnProperty.call(value, "error")) {
    const e = value.error;
    if (e === null || e === false || e === "") return undefined;
    return typeof e === "string" ? e.slice(0, 60) : "error";
  }
  return undefined;
}

const rehearseCodes = new Set<string>(rehearseErrorCodes);

function classify(content: string, role: "rehearsed" | "real", realError?: boolean): Side {
  const trimmed = content.trim();
  if (role === "rehearsed" && trimmed.startsWith(GENERATION_FAILED)) return { kind: "invalid", value: trimmed, text: true, label: "GENERATION_FAILED" };
  const parsed = pyLoads(trimmed);
  let plain: { value: unknown } | undefined;
  try {
    plain = parsed.ok ? { value: toPlainJson(parsed.value) } : undefined;
  } catch {
    plain = undefined; // too deep for the stack: compared as text
  }
  const container = plain !== undefined && parsed.ok && (Array.isArray(parsed.value) || parsed.value instanceof Map);
  const value = plain ? plain.value : trimmed;
  // Top-level scalars other than strings are kept as text ("7.0" from a calculator is the text it returned).
  const side: Side = container || typeof value === "string" ? { kind: "value", value, text: !container } : { kind: "value", value: trimmed, text: true };
  const label = errorLabel(side.value);
  if (role === "rehearsed" && label !== undefined && rehearseCodes.has(label)) return { ...side, kind: "invalid", label };
  if (role === "real" && realError !== undefined) return { ...side, kind: realError ? "error" : "value", label: realError ? (label ?? trimmed.slice(0, 60)) : undefined };
  return label !== undefined ? { ...side, kind: "error", label } : side;
}

// ---------------------------------------------------------------------------------------------
// Structural similarity
// ---------------------------------------------------------------------------------------------

function describe(value: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? "null";
  } catch {
    s = "<deep>";
  }
  return s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS - 1)}…` : s;
}

function memberPath(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

type Recorder = ((d: Divergence) => void) | undefined;

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== "object";
}

/** Equal JSON values: numbers by value, object key order ignored, list order kept. */
export function deepEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (depth > MAX_DEPTH) return describe(a) === describe(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i], depth + 1));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1));
}

/** Words of a text; identifiers such as `sara_doe_496`, `#W2378156` or `a.b@c.com` stay one word. */
function words(s: string): string[] {
  return s.toLowerCase().match(/#?[\p{L}\p{N}_]+(?:[@.\-'][\p{L}\p{N}_]+)*/gu) ?? [];
}

/** Texts: equal after trimming → 1; two multi-word texts → F1 of their word multisets; else 0. */
export function textSimilarity(a: string, b: string): number {
  if (a.trim() === b.trim()) return 1;
  const wa = words(a);
  const wb = words(b);
  if (wa.length < 2 || wb.length < 2) return 0;
  const counts = new Map<string, number>();
  for (const w of wa) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of wb) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      common++;
      counts.set(w, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / wa.length;
  const recall = common / wb.length;
  return (2 * precision * recall) / (precision + recall);
}

/** A one-member wrapper around a scalar: `{"k": v}` or `[v]` → v. */
function unwrapSingle(v: unknown): { value: unknown; suffix: string } | undefined {
  if (Array.isArray(v)) return v.length === 1 && isScalar(v[0]) ? { value: v[0], suffix: "[]" } : undefined;
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    return keys.length === 1 && isScalar(v[keys[0]!]) ? { value: v[keys[0]!], suffix: memberPath("", keys[0]!) } : undefined;
  }
  return undefined;
}

function scalarSimilarity(a: unknown, b: unknown, textual: boolean): number {
  if (typeof a === "string" && typeof b === "string") return textSimilarity(a, b);
  if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b)) ? 1 : 0;
  // A response that was bare text ("7.0") against a number (7): compare by value.
  if (textual && typeof a === "string" && typeof b === "number") return a.trim() !== "" && Number(a) === b ? 1 : 0;
  if (textual && typeof a === "number" && typeof b === "string") return b.trim() !== "" && Number(b) === a ? 1 : 0;
  return a === b ? 1 : 0;
}

function similarity(a: unknown, b: unknown, path: string, record: Recorder, depth: number, textual: boolean): number {
  if (depth > MAX_DEPTH) {
    const same = describe(a) === describe(b);
    if (!same) record?.({ path, rehearsed: describe(a), real: describe(b) });
    return same ? 1 : 0;
  }
  const aScalar = isScalar(a);
  const bScalar = isScalar(b);
  if (aScalar && bScalar) {
    const s = scalarSimilarity(a, b, textual);
    if (s < 1) record?.({ path, rehearsed: describe(a), real: describe(b) });
    return s;
  }
  if (aScalar !== bScalar) {
    // A bare scalar against a one-member wrapper: compare the wrapped value.
    const wrapped = unwrapSingle(aScalar ? b : a);
    if (wrapped) {
      return aScalar
        ? similarity(a, wrapped.value, path + wrapped.suffix, record, depth + 1, textual)
        : similarity(wrapped.value, b, path + wrapped.suffix, record, depth + 1, textual);
    }
    record?.({ path, rehearsed: describe(a), real: describe(b) });
    return 0;
  }
  if (Array.isArray(a) && Array.isArray(b)) return listSimilarity(a, b, path, record, depth);
  if (isPlainObject(a) && isPlainObject(b)) return objectSimilarity(a, b, path, record, depth);
  record?.({ path, rehearsed: describe(a), real: describe(b) });
  return 0;
}

function objectSimilarity(a: Record<string, unknown>, b: Record<string, unknown>, path: string, record: Recorder, depth: number): number {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  if (keys.size === 0) return 1;
  let total = 0;
  for (const k of keys) {
    const inA = Object.prototype.hasOwnProperty.call(a, k);
    const inB = Object.prototype.hasOwnProperty.call(b, k);
    const p = memberPath(path, k);
    if (inA && inB) total += similarity(a[k], b[k], p, record, depth + 1, false);
    else record?.({ path: p, rehearsed: inA ? describe(a[k]) : null, real: inB ? describe(b[k]) : null });
  }
  return total / keys.size;
}

function listSimilarity(a: unknown[], b: unknown[], path: string, record: Recorder, depth: number): number {
  if (a.length === 0 && b.length === 0) return 1;
  const p = `${path}[]`;
  const sim = a.map((x) => b.map((y) => similarity(x, y, p, undefined, depth + 1, false)));
  const pairs = a.length * b.length <= MAX_OPTIMAL_PAIRING * MAX_OPTIMAL_PAIRING && Math.max(a.length, b.length) <= MAX_OPTIMAL_PAIRING ? optimalPairing(sim) : greedyPairing(sim);
  let total = 0;
  const pairedA = new Set<number>();
  const pairedB = new Set<number>();
  for (const [i, j] of pairs) {
    pairedA.add(i);
    pairedB.add(j);
    total += sim[i]![j]!;
    if (record && sim[i]![j]! < 1) similarity(a[i], b[j], p, record, depth + 1, false);
  }
  if (record) {
    a.forEach((x, i) => pairedA.has(i) || record({ path: p, rehearsed: describe(x), real: null }));
    b.forEach((y, j) => pairedB.has(j) || record({ path: p, rehearsed: null, real: describe(y) }));
  }
  return total / Math.max(a.length, b.length);
}

/**
 * Maximum-weight one-to-one pairing of rows and columns of a similarity matrix (Hungarian algorithm
 * on costs 1 − s, the matrix padded to a square with similarity 0). Returns [row, column] pairs of
 * real rows and columns.
 */
export function optimalPairing(sim: number[][]): [number, number][] {
  const rows = sim.length;
  const cols = rows ? sim[0]!.length : 0;
  const n = Math.max(rows, cols);
  if (n === 0) return [];
  const cost = (i: number, j: number) => 1 - (i < rows && j < cols ? sim[i]![j]! : 0);
  // Potentials u (rows), v (columns); way[j] = previous column on the augmenting path; match[j] = row (1-based).
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const match = new Int32Array(n + 1);
  const way = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    match[0] = i;
    let j0 = 0;
    const minv = new Float64Array(n + 1).fill(Infinity);
    const used = new Uint8Array(n + 1);
    do {
      used[j0] = 1;
      const i0 = match[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[match[j]!] += delta;
          v[j] -= delta;
        } else minv[j] -= delta;
      }
      j0 = j1;
    } while (match[j0] !== 0);
    do {
      const j1 = way[j0]!;
      match[j0] = match[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const pairs: [number, number][] = [];
  for (let j = 1; j <= n; j++) {
    const i = match[j]! - 1;
    if (i >= 0 && i < rows && j - 1 < cols) pairs.push([i, j - 1]);
  }
  return pairs.sort((x, y) => x[0] - y[0]);
}

/** Greedy pairing by descending similarity (for very long lists). */
function greedyPairing(sim: number[][]): [number, number][] {
  const cells: [number, number, number][] = [];
  sim.forEach((row, i) => row.forEach((s, j) => cells.push([s, i, j])));
  cells.sort((x, y) => y[0] - x[0]);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  const pairs: [number, number][] = [];
  for (const [, i, j] of cells) {
    if (usedA.has(i) || usedB.has(j)) continue;
    usedA.add(i);
    usedB.add(j);
    pairs.push([i, j]);
  }
  return pairs;
}

// ---------------------------------------------------------------------------------------------
// The comparison
// ---------------------------------------------------------------------------------------------

export interface CompareOptions {
  /** The environment's own error flag for the real response (e.g. tau2's `error`), instead of detection. */
  realError?: boolean;
}

function marker(side: Side): string {
  if (side.kind === "invalid") return `invalid rehearsal (${side.label})`;
  if (side.kind === "error") return `error ${side.label ?? ""}`.trim();
  return describe(side.value);
}

/** Compare a rehearsed tool message content with the real one. */
export function compareResponses(rehearsed: string, real: string, options: CompareOptions = {}): Fidelity {
  const a = classify(rehearsed, "rehearsed");
  const b = classify(real, "real", options.realError);
  const exact = a.kind !== "invalid" && (a.text || b.text ? a.text && b.text && rehearsed.trim() === real.trim() : deepEqual(a.value, b.value));
  if (a.kind === "invalid") {
    return { score: 0, exact: false, errorAgreement: false, outcome: "invalid_rehearsal", divergences: [{ path: "$", rehearsed: marker(a), real: marker(b) }] };
  }
  if (a.kind === "error" && b.kind === "error") return { score: 1, exact, errorAgreement: true, outcome: "both_errors", divergences: [] };
  if (a.kind !== b.kind) {
    return { score: 0, exact: false, errorAgreement: false, outcome: "error_mismatch", divergences: [{ path: "$", rehearsed: marker(a), real: marker(b) }] };
  }
  const divergences: Divergence[] = [];
  const record = (d: Divergence) => {
    if (divergences.length < MAX_DIVERGENCES) divergences.push(d);
  };
  const score = exact ? 1 : similarity(a.value, b.value, "$", record, 0, a.text || b.text);
  return { score, exact, errorAgreement: true, outcome: "values", divergences: score >= 1 ? [] : divergences };
}

export interface FidelitySummary {
  comparisons: number;
  exactRate: number;
  errorAgreementRate: number;
  meanScore: number;
  /** Share of comparisons whose rehearsal broke the output format. */
  invalidRate: number;
}

export function summarizeFidelity(items: Fidelity[]): FidelitySummary | null {
  if (items.length === 0) return null;
  const n = items.length;
  const mean = (f: (x: Fidelity) => number) => items.reduce((s, x) => s + f(x), 0) / n;
  return {
    comparisons: n,
    exactRate: mean((x) => (x.exact ? 1 : 0)),
    errorAgreementRate: mean((x) => (x.errorAgreement ? 1 : 0)),
    meanScore: mean((x) => x.score),
    invalidRate: mean((x) => (x.outcome === "invalid_rehearsal" ? 1 : 0)),
  };
}
