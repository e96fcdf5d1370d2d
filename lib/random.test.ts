import { describe, expect, it } from "vitest";
import { mulberry32, seededShuffle, stepSeed, takeCyclic } from "./random";

// Golden values recorded from the four generators and two mixes this module replaced (shop tasks,
// the tiny GPT's initialisation, builtin/dataset sampling, tau2 sampling): they must never change,
// or resumed runs would draw other instances than their first attempt did.
describe("seeded random", () => {
  it("mulberry32 keeps its exact sequence", () => {
    const r = mulberry32(42);
    expect([r(), r(), r()]).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
    const seven = mulberry32(7);
    expect([seven(), seven()]).toEqual([0.011704753153026104, 0.06195825757458806]);
  });

  it("mixes (seed, step) the way resumed runs expect", () => {
    expect(stepSeed(3, 0)).toBe(4_000_012);
    expect(stepSeed(3, 5)).toBe(4_000_012 + 5 * 7919);
    expect(stepSeed(0xffffffff, 1)).toBe((Math.imul(0, 1_000_003) + 7919) >>> 0);
  });

  it("shuffles a copy deterministically and takes cyclically", () => {
    const items = [1, 2, 3, 4, 5, 6, 7, 8];
    const a = seededShuffle(items, 9);
    expect(a).toEqual(seededShuffle(items, 9));
    expect([...a].sort()).toEqual(items);
    expect(items).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(seededShuffle(items, 10)).not.toEqual(a);
    expect(takeCyclic(["a", "b", "c"], 5, 2)).toEqual(["c", "a", "b", "c", "a"]);
  });
});
