/**
 * The function documents as upstream shows them to the model for a single-turn entry
 * (`utils._func_doc_language_specific_pre_processing`): a language note appended to each function's
 * description, and for Java/JavaScript every parameter turned into a string parameter whose description
 * says which Java/JavaScript type to write (list element types and dict schemas moved into the text).
 * The checker keeps reading the original documents (`entry.functions`).
 */
import type { FunctionDocJson, SingleTurnEntry } from "./data";
import { pyJsonDumps, PyDict, type PyValue } from "./values";

const LANGUAGE_HINT = {
  python: " Note that the provided function is in Python 3 syntax.",
  java: " Note that the provided function is in Java 8 SDK syntax.",
  javascript: " Note that the provided function is in JavaScript syntax.",
} as const;

/** A plain JSON value as the Python dict `json.loads` would give (for `json.dumps` of a schema). */
function fromPlain(v: unknown): PyValue {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(fromPlain);
  return PyDict.of(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromPlain(x)]));
}

/** The documents the model sees for `entry` (deep copies; the entry is not changed). */
export function promptFunctions(entry: SingleTurnEntry): FunctionDocJson[] {
  const language = entry.language;
  return entry.functions.map((original) => {
    const f = structuredClone(original);
    f.description = (f.description ?? "") + LANGUAGE_HINT[language];
    if (language === "python") return f;
    const lang = language === "java" ? "Java" : "JavaScript";
    for (const [name, param] of Object.entries(f.parameters.properties)) {
      if (param.description === undefined) throw new Error(`${entry.id}: parameter ${name} of ${f.name} has no description (upstream requires one)`);
      const p = param as typeof param & { properties?: unknown };
      p.description += p.type === "any" ? ` This parameter can be of any type of ${lang} object in string representation.` : ` This is ${lang} ${p.type} type parameter in string representation.`;
      const listType = language === "java" ? p.type === "ArrayList" || p.type === "Array" : p.type === "array";
      if (listType) {
        p.description += ` The list elements are of type ${p.items?.type}; they are not in string representation.`;
        delete p.items;
      }
      if (language === "javascript" && p.type === "dict" && p.properties !== undefined) {
        p.description += ` The dictionary entries have the following schema; they are not in string representation. ${pyJsonDumps(fromPlain(p.properties))}`;
        delete p.properties;
      }
      p.type = "string";
    }
    return f;
  });
}
