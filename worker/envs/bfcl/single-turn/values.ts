/**
 * The Python values the single-turn checker and the memory back ends work on: the shared ones of
 * `lib/python/values.ts` (int = bigint, float = number, tuple, dict with Python key equality, `==`, `repr`,
 * `json.dumps`), plus what the single-turn port needs on top: `in` on a list, `key in dict` that answers
 * false for an unhashable key, and `json.loads` with Python's own error messages (the decoder's failure
 * text reaches the stored verdicts).
 */
import { PyDict, pyEq, pyJsonDumpsValue, type PyValue } from "../../../../lib/python/values";

export { PyDict, PyTuple, pyEq, pyRepr, pyStr, pyStrRepr, pyTypeName, type PyValue } from "../../../../lib/python/values";

/** Python `x in list` (identity is not observable for these value kinds, so equality decides). */
export const pyIn = (x: PyValue, list: readonly PyValue[]): boolean => list.some((item) => pyEq(item, x));

/** Python `key in dict` (an unhashable key raises TypeError in Python; reported as not found here). */
export function pyDictHas(d: PyDict, key: PyValue): boolean {
  if (Array.isArray(key) || key instanceof PyDict) return false;
  return d.has(key);
}

// ---------------------------------------------------------------------------------------------------------------
// json.loads

export class PyJsonError extends Error {}

/**
 * Python `json.loads(text)`: objects → dict (key order kept, a repeated key keeps its first position and
 * takes the last value), integer literals → int (exact, any size), other numbers → float, and Python's
 * extensions `NaN`, `Infinity`, `-Infinity`.
 */
export function pyJsonLoads(text: string): PyValue {
  let pos = 0;
  const fail = (what: string): never => {
    throw new PyJsonError(`${what}: line ${text.slice(0, pos).split("\n").length} column ${pos - text.lastIndexOf("\n", pos - 1)} (char ${pos})`);
  };
  const ws = () => {
    while (pos < text.length && " \t\n\r".includes(text[pos])) pos++;
  };
  const str = (): string => {
    pos++;
    let out = "";
    for (;;) {
      if (pos >= text.length) fail("Unterminated string starting at");
      const c = text[pos];
      if (c === '"') {
        pos++;
        return out;
      }
      if (c < " ") fail("Invalid control character at");
      if (c !== "\\") {
        out += c;
        pos++;
        continue;
      }
      const e = text[pos + 1];
      pos += 2;
      const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e in simple) out += simple[e];
      else if (e === "u") {
        const hex = text.slice(pos, pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("Invalid \\uXXXX escape");
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 4;
      } else fail("Invalid \\escape");
    }
  };
  const numberPattern = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
  const value = (): PyValue => {
    ws();
    const c = text[pos];
    if (c === "{") {
      pos++;
      const d = new PyDict();
      ws();
      if (text[pos] === "}") {
        pos++;
        return d;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail("Expecting property name enclosed in double quotes");
        const k = str();
        ws();
        if (text[pos] !== ":") fail("Expecting ':' delimiter");
        pos++;
        d.set(k, value());
        ws();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "}") {
          pos++;
          return d;
        } else fail("Expecting ',' delimiter");
      }
    }
    if (c === "[") {
      pos++;
      const out: PyValue[] = [];
      ws();
      if (text[pos] === "]") {
        pos++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        if (text[pos] === ",") pos++;
        else if (text[pos] === "]") {
          pos++;
          return out;
        } else fail("Expecting ',' delimiter");
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [["true", true], ["false", false], ["null", null], ["NaN", NaN], ["Infinity", Infinity], ["-Infinity", -Infinity]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    numberPattern.lastIndex = pos;
    const m = numberPattern.exec(text);
    if (!m) return fail("Expecting value");
    pos += m[0].length;
    return m[1] === undefined && m[2] === undefined ? BigInt(m[0]) : Number(m[0]);
  };
  const result = value();
  ws();
  if (pos !== text.length) fail("Extra data");
  return result;
}

/** Python `json.dumps(value)` (default separators, ASCII escapes; tuples as lists). */
export const pyJsonDumps = (v: PyValue): string => pyJsonDumpsValue(v);
