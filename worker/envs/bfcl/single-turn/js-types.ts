/**
 * Port of upstream's `js_type_converter.py`: turns the JavaScript source text a model gave for a parameter
 * (`"'abc'"`, `"123n"`, `"[1, 2]"`, `"{key: 'v'}"`) into the Python value the checker compares, falling back
 * to the text where upstream's patterns do not match. Python regex and `str` semantics are kept.
 */
import { ConverterError } from "./java-types";
import { PyDict, type PyValue } from "./values";
import { PY_DIGIT as D, PY_DOT as DOT, PY_END as END, PY_SPACE as S, pyFloatFromString, pyIntFromString, pyRe, pySlice, pyStrip } from "./pystr";

/** The JavaScript type names upstream maps (`JS_TYPE_CONVERSION`) and the Python type each converts to. */
export const JS_TYPE_CONVERSION = {
  String: "str",
  integer: "int",
  float: "float",
  Bigint: "int",
  Boolean: "bool",
  dict: "dict",
  array: "list",
  any: "str",
} as const;
export type JsTypeName = keyof typeof JS_TYPE_CONVERSION;
export const isJsType = (t: string): t is JsTypeName => Object.hasOwn(JS_TYPE_CONVERSION, t);

const INT_RE = pyRe(`^-?${D}+${END}`);
const FLOAT_RE = pyRe(`^-?${D}+(\\.${D}+)?${END}`);
const BIGINT_RE = pyRe(`^-?${D}+n${END}`);

function intOf(s: string): bigint {
  const v = pyIntFromString(s);
  if (v === undefined) throw new ConverterError("ValueError", `invalid literal for int() with base 10: ${JSON.stringify(s)}`);
  return v;
}

const quoted = (s: string) => (s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"));

export function jsTypeConverter(value: string, expectedType: string, nestedType?: string): PyValue {
  if (!isJsType(expectedType)) throw new ConverterError("ValueError", `Unsupported type: ${expectedType}`);
  switch (expectedType) {
    case "String":
      return quoted(value) ? pySlice(value, 1, -1) : value;
    case "integer":
      return INT_RE.test(value) ? intOf(value) : value;
    case "float": {
      if (!FLOAT_RE.test(value)) return value;
      const f = pyFloatFromString(value);
      if (f === undefined) throw new ConverterError("ValueError", `could not convert string to float: ${JSON.stringify(value)}`);
      return f;
    }
    case "Bigint":
      return BIGINT_RE.test(value) ? intOf(pySlice(value, 0, -1)) : value;
    case "Boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "dict":
      return parseJsCollection(value, "dict", nestedType);
    case "array":
      return parseJsCollection(value, "array", nestedType);
    case "any":
      return value;
  }
}

// Both patterns are used with re.match (anchored at the start only). `\b` before `new` is implied there.
const ARRAY_2D_RE = pyRe(`^(?:\\[${S}*\\[${DOT}*?\\]${S}*(?:,${S}*\\[${DOT}*?\\]${S}*)*\\]|new${S}+Array\\(${S}*\\[${DOT}*?\\]${S}*(?:,${S}*\\[${DOT}*?\\]${S}*)*\\))`);
const INNER_ARRAY_RE = pyRe(`\\[(${DOT}*?)\\]`, "g");
const ARRAY_RE = pyRe(`^(?:\\[(${DOT}*?)\\]|new${S}+Array\\((${DOT}*?)\\))`);
const DICT_RE = pyRe(`^\\{(${DOT}*?)\\}`);
const PAIR_RE = pyRe(`([^:]+):${S}*(${DOT}*?)(?:,${S}*(?=[^,]+:)|$)`, "g");

export function parseJsCollection(input: string, typeName: "array" | "dict", nestedType?: string): PyValue {
  const code = pyStrip(input);
  if (typeName === "array") {
    // Upstream wraps this branch in a bare `except:` that gives back the stripped text.
    try {
      const twoD = ARRAY_2D_RE.exec(code);
      if (twoD) {
        return [...twoD[0].matchAll(INNER_ARRAY_RE)].map((m, index) => {
          let inner = pyStrip(m[1]);
          if (index === 0 && inner.startsWith("[")) inner = pySlice(inner, 1);
          return inner.split(",").map((e) => parseJsValue(pyStrip(e)));
        });
      }
      const oneD = ARRAY_RE.exec(code);
      if (!oneD) return code;
      const body = oneD[1] ?? oneD[2];
      const stripped = body === undefined ? "" : pyStrip(body);
      const elements = stripped ? stripped.split(",") : [];
      if (nestedType) {
        return elements.map((e) => {
          const t = pyStrip(e);
          return t.startsWith("'") || t.startsWith('"') ? jsTypeConverter(t, nestedType, "String") : jsTypeConverter(t, nestedType);
        });
      }
      return elements.map((e) => parseJsValue(pyStrip(e)));
    } catch {
      return code;
    }
  }
  if (code === "{}") return new PyDict();
  const m = DICT_RE.exec(code);
  if (!m) return code;
  try {
    const out = new PyDict();
    for (const pair of m[1].matchAll(PAIR_RE)) {
      const key = pyStrip(pyStrip(pair[1]), "'\"");
      const value = pyStrip(pair[2]);
      if (value.startsWith("[") && value.endsWith("]")) out.set(key, parseJsCollection(value, "array"));
      else if (value.startsWith("{") && value.endsWith("}")) out.set(key, parseJsCollection(value, "dict"));
      else out.set(key, parseJsValue(pyStrip(value, "'\"")));
    }
    return out;
  } catch {
    return code;
  }
}

/** Upstream's `parse_js_value`: a literal without a declared type. */
export function parseJsValue(input: string): PyValue {
  const text = pyStrip(input);
  if (text === "true") return true;
  if (text === "false") return false;
  if (quoted(text)) return pySlice(text, 1, -1);
  const asInt = pyIntFromString(text);
  if (asInt !== undefined) return asInt;
  const asFloat = pyFloatFromString(text);
  if (asFloat !== undefined) return asFloat;
  return text;
}
