import { describe, expect, it } from "vitest";
import { pyJsonLoads } from "./json";
import { pyPrefix, pyRepr, pyStr } from "./repr";

// Golden strings printed by CPython 3 (`repr(...)` / `str(...)` of the same values).
describe("Python repr/str of JSON values", () => {
  it("dicts, lists, quotes, escapes and non-printable characters", () => {
    const v = pyJsonLoads('{"k": "it\'s", "u": "\\u00e9\\u200b\\u0085\\ud800\\ud83d\\ude00", "q": "a\\"b", "t": "\\t", "l": [true, null, 1.5, 2]}');
    expect(pyRepr(v)).toBe(`{'k': "it's", 'u': 'é\\u200b\\x85\\ud800😀', 'q': 'a"b', 't': '\\t', 'l': [True, None, 1.5, 2]}`);
    expect(pyStr(pyJsonLoads('{"x": "both\'\\""}'))).toBe(`{'x': 'both\\'"'}`);
    expect(pyStr("plain")).toBe("plain");
    expect(pyStr(null)).toBe("None");
    expect(pyRepr(pyJsonLoads("[7.0, 7, 1e-7]"))).toBe("[7.0, 7, 1e-07]");
  });
  it("prefixes count code points, never cutting a surrogate pair", () => {
    expect(pyPrefix("😀😀abc", 3)).toBe("😀😀a");
    expect(pyPrefix("ab", 10)).toBe("ab");
    expect(pyPrefix("a\uD800b", 2)).toBe("a\uD800");
  });
});
