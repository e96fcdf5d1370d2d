import { describe, expect, it } from "vitest";
import { parseOrderedJson, PyInt, pyFloatRepr, pyJsonDumps, pyJsonString, round2 } from "./json";

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
