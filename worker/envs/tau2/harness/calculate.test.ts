import { describe, expect, it } from "vitest";
import { calculateExpression } from "./calculate";

describe("calculate follows Python semantics", () => {
  it.each([
    ["2 + 2", "4.0"], ["10/4", "2.5"], ["1/3", "0.33"], ["100", "100.0"], ["2*-3", "-6.0"], ["7//2", "3.0"],
    ["-7//2", "-4.0"], ["0.125", "0.12"], ["2**100", "1.2676506002282294e+30"], ["1000000*1000000*100000", "1e+17"],
    ["0.00001", "0.0"], ["-2**2", "-4.0"], ["2**-1", "0.5"], ["3--2", "5.0"], ["2**3**2", "512.0"], ["  (1+2)*3", "9.0"],
    ["1.", "1.0"], [".5", "0.5"], ["00", "0.0"], ["00.5", "0.5"], ["(2.5 - 1) / 2", "0.75"], ["10**20/3", "3.333333333333333e+19"], ["(2**80+1)/3", "4.029752732048764e+23"], ["297464942117865831364/123649", "2405720564807364.5"], ["10**300/10**299", "10.0"], ["7//+7**-2*+(10)", "3430.0"], ["0.5/0.5/7//7**-2", "7.0"],
  ])("%s -> %s", (expr, out) => expect(calculateExpression(expr)).toBe(out));

  it.each([
    ["2 % 3", "Invalid characters in expression"], ["1e5", "Invalid characters in expression"], ["1,000", "Invalid characters in expression"],
    ["1/0", "division by zero"], ["1.0/0", "float division by zero"], ["7//0", "integer division or modulo by zero"],
    ["1+", "invalid syntax (<string>, line 1)"], ["1 2", "invalid syntax (<string>, line 1)"], ["", "invalid syntax (<string>, line 0)"],
    ["(1", "'(' was never closed (<string>, line 1)"], ["1)", "unmatched ')' (<string>, line 1)"],
    ["()", "float() argument must be a string or a real number, not 'tuple'"], ["10**400", "int too large to convert to float"],
    ["2 (3)", "'int' object is not callable"], ["2 (3/0)", "division by zero"], ["(1 2)", "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
    ["(.5 100000", "'(' was never closed (<string>, line 1)"], ["3 3*(0-+0*1", "'(' was never closed (<string>, line 1)"],
    ["1. 05+2", "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
    ["05", "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"],
  ])("%s -> error %s", (expr, message) => expect(() => calculateExpression(expr)).toThrow(message));

  it("refuses absurd integer powers quickly instead of hanging", () => {
    expect(() => calculateExpression("9**9**9")).toThrow("int too large to convert to float");
  });
});
