/**
 * Text PostgreSQL cannot store: NUL characters (text columns refuse them, jsonb refuses "\u0000") and
 * unpaired UTF-16 surrogates (not Unicode; jsonb refuses their escapes). Inputs are checked for both at
 * the boundary, so the caller gets a 400 naming the field instead of a database error.
 */

export interface UnstorableText {
  /** Dotted path of the field ("tags.2", "config.rollout.k"); "" for the input itself. */
  path: string;
  problem: string;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with one string, or null. */
export function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "contains a NUL character (\\u0000), which cannot be stored";
  if (LONE_SURROGATE.test(value)) return "contains an unpaired UTF-16 surrogate (not valid Unicode text)";
  return null;
}

/** The first string (or object key) anywhere in `value` that cannot be stored, or null. */
export function findUnstorableText(value: unknown, path: string[] = [], seen = new Set<object>()): UnstorableText | null {
  if (typeof value === "string") {
    const problem = textProblem(value);
    return problem ? { path: path.join("."), problem } : null;
  }
  if (value === null || typeof value !== "object" || seen.has(value)) return null;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], [...path, String(i)], seen);
      if (found) return found;
    }
    return null;
  }
  if (value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value)) return null;
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  for (const [key, v] of entries) {
    const k = String(key);
    const keyProblem = textProblem(k);
    if (keyProblem) return { path: [...path, JSON.stringify(k).slice(1, -1)].join("."), problem: `has a key that ${keyProblem}` };
    const found = findUnstorableText(v, [...path, k], seen);
    if (found) return found;
  }
  return null;
}

/** One line for an error message: "name: contains a NUL character …". */
export function describeUnstorable(found: UnstorableText): string {
  return `${found.path || "input"}: ${found.problem}`;
}
