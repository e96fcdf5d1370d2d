/**
 * Rehearsal fidelity: how close a rehearsed tool response is to the real one (shadow execution).
 */
import { safeParseJson } from "./parsers";

export interface Fidelity {
  /** Both parse to deep-equal JSON values. */
  exact: boolean;
  /** Share of leaf paths (union of both sides) present on both sides with equal values, 0..1. */
  keyAgreement: number;
  /** Both are errors (`error_tool_call`) or both are not. */
  errorAgreement: boolean;
  /** Summary score: 1 when exact, else keyAgreement. */
  score: number;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as any)[k], (b as any)[k]));
}

/** Flatten a JSON value into `path → leaf JSON` (depth-limited so adversarial values stay cheap). */
function leaves(value: unknown, prefix = "", out = new Map<string, string>(), depth = 0): Map<string, string> {
  if (depth < 32 && typeof value === "object" && value !== null) {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    if (entries.length === 0) out.set(prefix, Array.isArray(value) ? "[]" : "{}");
    for (const [k, v] of entries) leaves(v, prefix ? `${prefix}.${k}` : k, out, depth + 1);
    return out;
  }
  let leaf: string;
  try {
    leaf = JSON.stringify(value) ?? "null";
  } catch {
    leaf = "<deep>";
  }
  out.set(prefix, leaf);
  return out;
}

export function isErrorValue(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "error_tool_call" in value;
}

/** Compare two tool message contents. Non-JSON text is compared as a string leaf. */
export function compareResponses(rehearsed: string, real: string): Fidelity {
  const a = safeParseJson(rehearsed);
  const b = safeParseJson(real);
  const va = a.ok ? a.value : rehearsed;
  const vb = b.ok ? b.value : real;
  const exact = deepEqual(va, vb);
  const la = leaves(va);
  const lb = leaves(vb);
  const union = new Set([...la.keys(), ...lb.keys()]);
  let agree = 0;
  for (const k of union) if (la.has(k) && la.get(k) === lb.get(k)) agree++;
  const keyAgreement = exact ? 1 : union.size === 0 ? 0 : agree / union.size;
  const errorAgreement = isErrorValue(va) === isErrorValue(vb);
  return { exact, keyAgreement, errorAgreement, score: exact ? 1 : keyAgreement };
}

export interface FidelitySummary {
  comparisons: number;
  exactRate: number;
  meanKeyAgreement: number;
  errorAgreementRate: number;
  meanScore: number;
}

export function summarizeFidelity(items: Fidelity[]): FidelitySummary | null {
  if (items.length === 0) return null;
  const n = items.length;
  const sum = (f: (x: Fidelity) => number) => items.reduce((s, x) => s + f(x), 0) / n;
  return {
    comparisons: n,
    exactRate: sum((x) => (x.exact ? 1 : 0)),
    meanKeyAgreement: sum((x) => x.keyAgreement),
    errorAgreementRate: sum((x) => (x.errorAgreement ? 1 : 0)),
    meanScore: sum((x) => x.score),
  };
}
