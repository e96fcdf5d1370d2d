/**
 * Port of upstream's `java_type_converter.py`: turns the Java source text a model gave for a parameter
 * (`"123L"`, `"new ArrayList<>(Arrays.asList(1, 2))"`, `"new HashMap<String, Object>() {{ put(…); }}"`)
 * into the Python value the checker compares, falling back to the text itself where upstream's pattern does
 * not match. Python's regex semantics are kept (see `pystr.ts`).
 */
import { PyDict, type PyValue } from "./values";
import { PY_DIGIT as D, PY_DOT as DOT, PY_END as END, PY_SPACE as S, PY_WORD as W, pyFloatFromString, pyIntFromString, pyRe, pySlice, pyStrip } from "./pystr";

/** The Java type names upstream maps (`JAVA_TYPE_CONVERSION`) and the Python type each converts to. */
export const JAVA_TYPE_CONVERSION = {
  byte: "int",
  short: "int",
  integer: "int",
  float: "float",
  double: "float",
  long: "int",
  boolean: "bool",
  char: "str",
  Array: "list",
  ArrayList: "list",
  Set: "set",
  HashMap: "dict",
  Hashtable: "dict",
  Queue: "list",
  Stack: "list",
  String: "str",
  any: "str",
} as const;
export type JavaTypeName = keyof typeof JAVA_TYPE_CONVERSION;
export const isJavaType = (t: string): t is JavaTypeName => Object.hasOwn(JAVA_TYPE_CONVERSION, t);

/** What upstream raises for types it declares but never implemented (Set, Hashtable, Queue, Stack). */
export class ConverterError extends Error {
  constructor(
    readonly pyType: "ValueError" | "NotImplementedError",
    message: string,
  ) {
    super(message);
  }
}

const INT_RE = pyRe(`^-?${D}+${END}`);
const FLOAT_RE = pyRe(`^-?${D}+(\\.${D}+)?([eE][+-]?${D}+)?[fF]${END}`);
const DOUBLE_RE = pyRe(`^-?${D}+(\\.${D}+)?([eE][+-]?${D}+)?${END}`);
const LONG_RE = pyRe(`^-?${D}+[lL]${END}`);
/** `re.sub(r"[fF]$", "", s)` / `re.sub(r"[lL]$", "", s)`. */
const stripSuffix = (s: string, letters: string): string => s.replace(pyRe(`[${letters}](?=\\n?$)`), "");

/** int(s) for text a digit pattern accepted (Python's int() also strips the optional final newline). */
function intOf(s: string): bigint {
  const v = pyIntFromString(s);
  if (v === undefined) throw new ConverterError("ValueError", `invalid literal for int() with base 10: ${JSON.stringify(s)}`);
  return v;
}
function floatOf(s: string): number {
  const v = pyFloatFromString(s);
  if (v === undefined) throw new ConverterError("ValueError", `could not convert string to float: ${JSON.stringify(s)}`);
  return v;
}

export function javaTypeConverter(value: string, expectedType: string, nestedType?: string): PyValue {
  if (!isJavaType(expectedType)) throw new ConverterError("ValueError", `Unsupported type: ${expectedType}`);
  switch (expectedType) {
    case "byte":
    case "short":
    case "integer":
      return INT_RE.test(value) ? intOf(value) : value;
    case "float":
      return FLOAT_RE.test(value) ? floatOf(stripSuffix(value, "fF")) : value;
    case "double":
      return DOUBLE_RE.test(value) ? floatOf(value) : value;
    case "long":
      return LONG_RE.test(value) ? intOf(stripSuffix(value, "lL")) : value;
    case "boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "char":
      // Upstream's pattern `^\'.$\'` can never match (nothing follows `$`), so a char stays as written.
      return value;
    case "Array":
      return parseArray(value, nestedType);
    case "ArrayList":
      return parseArrayList(value, nestedType);
    case "HashMap":
      return parseHashMap(value);
    case "Set":
      throw new ConverterError("NotImplementedError", "Set conversion is not implemented");
    case "Hashtable":
      throw new ConverterError("NotImplementedError", "Set conversion is not implemented");
    case "Queue":
    case "Stack":
      throw new ConverterError("NotImplementedError", `${expectedType} conversion is not implemented`);
    case "String":
    case "any":
      return value;
  }
}

/** One element of a collection: quotes removed for char/String elements, else converted by its type. */
function element(text: string, nestedType: string | undefined): PyValue {
  if (nestedType === "char" || nestedType === "String") return pySlice(text, 1, -1);
  return nestedType ? javaTypeConverter(text, nestedType) : parseJavaValue(text);
}

const AS_LIST_RE = pyRe(`new${S}+ArrayList<${W}*>\\(Arrays\\.asList\\((${DOT}+?)\\)\\)`);
const ADD_BLOCK_RE = pyRe(`new${S}+ArrayList<${W}*>\\(\\)${S}*\\{\\{${S}*([\\s\\S]+?)${S}*\\}\\}`);
const ADD_CALL_RE = pyRe(`add\\((${DOT}+?)\\)`, "g");
const EMPTY_LIST_RE = pyRe(`new${S}+ArrayList<${W}*>\\(\\)`);

function parseArrayList(input: string, nestedType?: string): PyValue {
  const asList = AS_LIST_RE.exec(input);
  if (asList) return asList[1].split(",").map((part) => element(pyStrip(part), nestedType));
  const adds = ADD_BLOCK_RE.exec(input);
  if (adds) return [...adds[1].matchAll(ADD_CALL_RE)].map((m) => element(pyStrip(m[1]), nestedType));
  if (EMPTY_LIST_RE.test(input)) return [];
  return input;
}

const ARRAY_RE = pyRe(`new${S}+${W}+\\[\\]${S}*\\{(${DOT}*?)\\}`);

function parseArray(input: string, nestedType?: string): PyValue {
  const m = ARRAY_RE.exec(input);
  if (!m) return input;
  return m[1]
    .split(",")
    .filter((x) => pyStrip(x) !== "")
    .map((x) => (nestedType ? javaTypeConverter(pyStrip(x), nestedType) : parseJavaValue(pyStrip(x))));
}

const HASHMAP_RE = pyRe(`new${S}+HashMap<[\\s\\S]*?>${S}*\\(\\)${S}*\\{${S}*\\{?${S}*([\\s\\S]*?)${S}*\\}?${S}*\\}`);
const PUT_RE = pyRe(`put\\("(${DOT}*?)",${S}*(${DOT}*?)\\)`, "g");
const EMPTY_HASHMAP_RE = pyRe(`new${S}+HashMap<${DOT}*?>${S}*\\(\\)`);

function parseHashMap(input: string): PyValue {
  const m = HASHMAP_RE.exec(input);
  if (m) {
    const out = new PyDict();
    if (pyStrip(m[1]) !== "") {
      for (const put of m[1].matchAll(PUT_RE)) out.set(put[1], parseJavaValue(pyStrip(put[2])));
    }
    return out;
  }
  if (EMPTY_HASHMAP_RE.test(input)) return new PyDict();
  return input;
}

const VALUE_LONG_RE = pyRe(`^-?${D}+[lL]${END}`);

/** Upstream's `parse_java_value`: a literal without a declared type. */
export function parseJavaValue(text: string): PyValue {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text.startsWith('"') && text.endsWith('"')) return pySlice(text, 1, -1);
  if (VALUE_LONG_RE.test(text)) return intOf(pySlice(text, 0, -1));
  if (FLOAT_RE.test(text)) return floatOf(stripSuffix(text, "fF"));
  const asInt = pyIntFromString(text);
  if (asInt !== undefined) return asInt;
  const asFloat = pyFloatFromString(text);
  if (asFloat !== undefined) return asFloat;
  return text;
}
