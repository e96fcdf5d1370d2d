/**
 * The ground-truth policy for single-turn entries: the decoded output a model that follows the possible
 * answer would produce. For each call of the ground truth, a parameter is given when it is required or
 * cannot be left out (no "" among its acceptable values), with its first acceptable value; dict answers (and
 * lists of dict answers) are resolved key by key the same way. Java and JavaScript values are written as the
 * source text their type converters read back (`5L`, `new int[]{1, 2}`, `"s"`, `[1, 2]`, `{k: 'v'}`).
 *
 * Used for oracle runs (a policy that must score 100 %) and as the base of the golden tests.
 */
import type { Language } from "./ast-checker";
import type { FunctionDocJson } from "./data";
import { pyFloatRepr as pyFloatReprOf } from "../../../../lib/python/json";
import { PyDict, pyRepr, pyStr, type PyValue } from "./values";

type ParamDoc = FunctionDocJson["parameters"]["properties"][string];

/** The first acceptable value other than "" (the optional marker). */
export function firstChoice(values: readonly PyValue[]): PyValue | undefined {
  return values.find((v) => v !== "");
}

const wanted = (values: readonly PyValue[], required: boolean) => required || !values.includes("");

function resolveDict(answer: PyDict): PyDict {
  const out = new PyDict();
  for (const [key, values] of answer.entries()) {
    if (!Array.isArray(values)) {
      out.set(key, values);
      continue;
    }
    const v = firstChoice(values);
    if (v !== undefined && wanted(values, false)) out.set(key, v);
  }
  return out;
}

/** A chosen answer as a model gives it: dict answers (and lists of them) resolved key by key. */
export function resolveAnswer(value: PyValue, doc: ParamDoc | undefined): PyValue {
  const t = doc?.type;
  if ((t === "dict" || t === "HashMap") && value instanceof PyDict) return resolveDict(value);
  if ((t === "array" || t === "ArrayList" || t === "Array") && Array.isArray(value) && doc?.items?.type === "dict" && value.every((x) => x instanceof PyDict)) {
    return value.map((x) => resolveDict(x as PyDict));
  }
  return value;
}

/** The ground-truth calls as Python values (`[{name: {param: value}}]`). */
export function groundTruthCalls(functions: readonly FunctionDocJson[], possibleAnswer: readonly PyValue[]): PyDict[] {
  return possibleAnswer.map((call) => {
    const [name, params] = (call as PyDict).entries()[0] as [string, PyDict];
    const doc = functions.find((f) => f.name === name);
    const required = doc?.parameters.required ?? [];
    const args = new PyDict();
    for (const [param, values] of params.entries()) {
      const list = values as PyValue[];
      const v = firstChoice(list);
      if (v !== undefined && wanted(list, required.includes(param as string))) args.set(param, resolveAnswer(v, doc?.parameters.properties[param as string]));
    }
    return PyDict.of([[name, args]]);
  });
}

/** The ground-truth output in the form a model of that language gives it (source text for Java/JavaScript). */
export function oracleOutput(functions: readonly FunctionDocJson[], possibleAnswer: readonly PyValue[], language: Language): PyDict[] {
  const calls = groundTruthCalls(functions, possibleAnswer);
  if (language === "python") return calls;
  const toText = language === "java" ? javaText : jsText;
  return calls.map((call) => {
    const [name, args] = call.entries()[0] as [string, PyDict];
    const props = functions.find((f) => f.name === name)?.parameters.properties ?? {};
    return PyDict.of([[name, PyDict.of(args.entries().map(([p, v]) => [p, toText(v, props[p as string])]))]]);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Java source text

/** A decimal float text without an exponent (JavaScript's float pattern has none). */
export function plainFloat(x: number): string {
  const repr = pyFloatReprOf(x);
  if (!/[eE]/.test(repr)) return repr;
  const [mantissa, expText] = repr.split(/[eE]/);
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const point = mantissa.replace("-", "").indexOf(".") === -1 ? mantissa.replace("-", "").length : mantissa.replace("-", "").indexOf(".");
  const newPoint = point + exp;
  let text: string;
  if (newPoint <= 0) text = "0." + "0".repeat(-newPoint) + digits;
  else if (newPoint >= digits.length) text = digits + "0".repeat(newPoint - digits.length) + ".0";
  else text = digits.slice(0, newPoint) + "." + digits.slice(newPoint);
  return (negative ? "-" : "") + text;
}

function javaScalar(v: PyValue, t: string | undefined): string {
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return v;
  if (typeof v === "bigint") return t === "long" ? `${v}L` : String(v);
  if (typeof v === "number") return t === "float" ? pyFloatReprOf(v) + "f" : pyFloatReprOf(v);
  return pyStr(v);
}

/** A literal upstream's `parse_java_value` reads back as v (HashMap values). */
function javaLiteral(v: PyValue): string {
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return `"${v}"`;
  return pyRepr(v);
}

const JAVA_ARRAY_ELEMENT: Record<string, string> = { integer: "int", long: "long", String: "String" };

function javaText(v: PyValue, doc: ParamDoc | undefined): PyValue {
  const t = doc?.type;
  const item = doc?.items?.type;
  if (typeof v === "string") return v;
  if (t === "Array" && Array.isArray(v)) return `new ${JAVA_ARRAY_ELEMENT[item ?? ""] ?? "Object"}[]{${v.map((x) => javaScalar(x, item)).join(", ")}}`;
  if (t === "ArrayList" && Array.isArray(v)) {
    const parts = v.map((x) => (item === "String" || item === "char" ? `"${x}"` : javaScalar(x, item)));
    return `new ArrayList<>(Arrays.asList(${parts.join(", ")}))`;
  }
  if (t === "HashMap" && v instanceof PyDict) {
    const puts = v.entries().map(([k, x]) => `put("${k}", ${javaLiteral(x)});`);
    return `new HashMap<String, Object>() {{ ${puts.join(" ")} }}`;
  }
  return javaScalar(v, t);
}

// ---------------------------------------------------------------------------------------------------------------
// JavaScript source text

function jsScalar(v: PyValue, t: string | undefined): string {
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return t === "String" ? `"${v}"` : v;
  if (typeof v === "bigint") return t === "Bigint" ? `${v}n` : String(v);
  if (typeof v === "number") return plainFloat(v);
  return pyStr(v);
}

function jsLiteral(v: PyValue): string {
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return `'${v}'`;
  if (typeof v === "number") return plainFloat(v);
  if (Array.isArray(v)) return `[${v.map(jsLiteral).join(", ")}]`;
  if (v instanceof PyDict) return `{${v.entries().map(([k, x]) => `${pyStr(k)}: ${jsLiteral(x)}`).join(", ")}}`;
  return pyStr(v);
}

function jsText(v: PyValue, doc: ParamDoc | undefined): PyValue {
  const t = doc?.type;
  const item = doc?.items?.type;
  if (t === "String") return typeof v === "string" ? `"${v}"` : jsScalar(v, t);
  if (typeof v === "string") return v;
  if (t === "array" && Array.isArray(v)) return `[${v.map((x) => jsScalar(x, item)).join(", ")}]`;
  if (t === "dict" && v instanceof PyDict) return jsLiteral(v);
  return jsScalar(v, t);
}
