import { describe, expect, it } from "vitest";
import { parseOrderedJson, PyInt, pyFloatRepr, pyJsonDumps, pyJsonLoads, pyJsonString, round2, toPlainJson } from "./json";

describe("Python float text", () => {
  it.each([
    [4, "4.0"], [198, "198.0"], [0.33, "0.33"], [0.0001, "0.0001"], [1e15, "1000000000000000.0"],
    [36.12999999999999, "36.12999999999999"], [7.600000000000003, "7.600000000000003"], [1e16, "1e+16"],
    [1e-5, "1e-05"], [1.5e-7, "1.5e-07"], [2 ** 100, "1.2676506002282294e+30"], [-0, "-0.0"], [0, "0.0"],
    [-2.5, "-2.5"], [123456789012345.6, "123456789012345.6"], [1e22, "1e+22"], [Infinity, "inf"],
  ])("repr(%s) = %s", (x, text) => expect(pyFloatRepr(x)).toBe(text));
});

describe("round2 (Python round(x, 2))", () => {
  it.each([
    [0.125, 0.12], [0.375, 0.38], [0.625, 0.62], [0.875, 0.88], [-0.125, -0.12], [2.675, 2.67],
    [1.005, 1.0], [0.015, 0.01], [0.025, 0.03], [36.12999999999999, 36.13], [1.5, 1.5], [12345.125, 12345.12],
  ])("round2(%s) = %s", (x, y) => expect(round2(x)).toBe(y));
});

describe("json.dumps compatibility", () => {
  it("escapes like ensure_ascii and keeps '/'", () => {
    expect(pyJsonString('a"b\\c/d\n\t\u0001é😀\u007f')).toBe('"a\\"b\\\\c/d\\n\\t\\u0001\\u00e9\\ud83d\\ude00\\u007f"');
  });
  it("writes maps in insertion order or sorted, floats as Python floats, PyInt as int", () => {
    const m = new Map<string, unknown>([["9", 1], ["10", new PyInt(0)], ["a", [true, null]]]);
    expect(pyJsonDumps(m)).toBe('{"9": 1.0, "10": 0, "a": [true, null]}');
    expect(pyJsonDumps(m, { sortKeys: true })).toBe('{"10": 0, "9": 1.0, "a": [true, null]}');
    expect(pyJsonDumps({ a: [], b: {} }, { indent: 2 })).toBe('{\n  "a": [],\n  "b": {}\n}');
  });
  it("parses objects keeping key order (integer-like keys included) and int literals apart", () => {
    const v = parseOrderedJson('{"b": 1, "20": 2.0, "3": [1e2, -0.5, "x\\u00e9"]}') as Map<string, unknown>;
    expect([...v.keys()]).toEqual(["b", "20", "3"]);
    expect(v.get("b")).toEqual(new PyInt(1));
    expect(v.get("20")).toBe(2);
    expect(v.get("3")).toEqual([100, -0.5, "xé"]);
    expect(() => parseOrderedJson('{"a": 1,}')).toThrow(/invalid JSON/);
  });
});

// Golden strings printed by CPython 3 (json.dumps / json.loads); see docs/FIDELITY.md for how they were made.
describe("json.loads → json.dumps round trips as Python's", () => {
  it("keeps 7.0 a float, 7 an int, every digit of a big int, -0 as 0, NaN and -Infinity, key order", () => {
    const text = '{"q": 7.0, "s": 1E-7, "i": -0, "big": 12345678901234567890123, "x": NaN, "y": -Infinity, "2": 1, "1": 2}';
    expect(pyJsonDumps(pyJsonLoads(text))).toBe(
      '{"q": 7.0, "s": 1e-07, "i": 0, "big": 12345678901234567890123, "x": NaN, "y": -Infinity, "2": 1, "1": 2}',
    );
  });
  it("ensure_ascii=False writes non-ASCII text, DEL and U+2028 raw and still escapes quotes and controls", () => {
    const value = pyJsonLoads('{"a": "\u00e9\ud83d\ude00\u007f\u2028", "n": [7.0, 1e-7, 7, 12345678901234567890123]}');
    // The expected text holds raw é, 😀, DEL and U+2028 (JS escapes below are the characters themselves).
    expect(pyJsonDumps(value, { ensureAscii: false })).toBe('{"a": "\u00e9\u{1F600}\u007f\u2028", "n": [7.0, 1e-07, 7, 12345678901234567890123]}');
    expect(pyJsonDumps(value)).toBe('{"a": "\\u00e9\\ud83d\\ude00\\u007f\\u2028", "n": [7.0, 1e-07, 7, 12345678901234567890123]}');
    expect(pyJsonString('q"\\\n\u0001\u00e9', false)).toBe('"q\\"\\\\\\n\\u0001\u00e9"');
  });
  it("duplicate keys keep the first position with the last value; plain view for readers", () => {
    const v = pyJsonLoads('{"a": 1, "b": 2, "a": 3.5, "__proto__": {"x": 1}}');
    expect(pyJsonDumps(v)).toBe('{"a": 3.5, "b": 2, "__proto__": {"x": 1}}');
    const plain = toPlainJson(v) as Record<string, unknown>;
    expect(plain.a).toBe(3.5);
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.keys(plain)).toEqual(["a", "b", "__proto__"]);
  });
  it("an int literal stays an int (PyInt), a float literal a number", () => {
    expect(pyJsonLoads("7")).toEqual(new PyInt(7));
    expect(pyJsonLoads("7.0")).toBe(7);
    expect(() => pyJsonLoads("-")).toThrow(/invalid JSON/);
  });
});
