import { describe, expect, it } from "vitest";
import { daysInMonth, fromOrdinal, isLeap, toOrdinal } from "./calendar";

describe("the proleptic Gregorian calendar", () => {
  it("counts ordinals as CPython's date.toordinal", () => {
    expect(toOrdinal(1, 1, 1)).toBe(1);
    expect(toOrdinal(1970, 1, 1)).toBe(719163);
    expect(toOrdinal(2024, 2, 29)).toBe(738945);
    expect(toOrdinal(9999, 12, 31)).toBe(3652059);
  });

  it("inverts toOrdinal on every day of four centuries, cycle ends included", () => {
    for (let n = toOrdinal(1899, 12, 25); n <= toOrdinal(2301, 1, 5); n++) expect(toOrdinal(...fromOrdinal(n))).toBe(n);
    expect(fromOrdinal(toOrdinal(2000, 12, 31))).toEqual([2000, 12, 31]);
    expect(fromOrdinal(toOrdinal(1996, 12, 31))).toEqual([1996, 12, 31]);
    expect(fromOrdinal(1)).toEqual([1, 1, 1]);
    expect(fromOrdinal(3652059)).toEqual([9999, 12, 31]);
  });

  it("knows leap years", () => {
    expect([1900, 2000, 2023, 2024].map(isLeap)).toEqual([false, true, false, true]);
    expect(daysInMonth(1900, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
  });
});
