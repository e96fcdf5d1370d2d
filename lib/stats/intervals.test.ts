/** The interval math against published values: Newcombe (1998), Stat. Med. 17, Table I (Wilson, method 3) and Table II (method 10). */
import { describe, expect, it } from "vitest";
import { formatIntervalPct, moverLinear, newcombeDifference, wilson, wilsonCounts } from "./intervals";

const close = (i: { low: number; high: number } | null, low: number, high: number) => {
  expect(i).not.toBeNull();
  expect(i!.low).toBeCloseTo(low, 4);
  expect(i!.high).toBeCloseTo(high, 4);
};

describe("Wilson score interval", () => {
  it("matches Newcombe's Table I", () => {
    close(wilsonCounts(81, 263), 0.2553, 0.3662);
    close(wilsonCounts(15, 148), 0.0624, 0.1605);
    close(wilsonCounts(0, 20), 0, 0.1611);
    close(wilsonCounts(1, 29), 0.0061, 0.1718);
  });

  it("stays inside [0, 1], is symmetric around one half, and has no answer without trials", () => {
    close(wilson(1, 4), 0.5101, 1);
    const half = wilson(0.5, 4)!;
    expect(half.low + half.high).toBeCloseTo(1, 12);
    expect(wilson(0.5, 0)).toBeNull();
    expect(wilsonCounts(0, 0)).toBeNull();
  });
});

describe("differences (MOVER with Wilson limits = Newcombe's method 10)", () => {
  it("matches Newcombe's Table II", () => {
    close(newcombeDifference(56 / 70, 70, 48 / 80, 80), 0.0524, 0.3339);
    close(newcombeDifference(9 / 10, 10, 3 / 10, 10), 0.1705, 0.809);
    close(newcombeDifference(5 / 56, 56, 0 / 29, 29), -0.0381, 0.1926);
    close(newcombeDifference(0 / 10, 10, 0 / 20, 20), -0.1611, 0.2775);
    close(newcombeDifference(10 / 10, 10, 0 / 20, 20), 0.6791, 1);
  });

  it("the issue's case: +25 points on 4 tasks is well inside noise", () => {
    // 3 of 4 against 2 of 4: Δ = +25 points, and the interval spans zero widely.
    const d = newcombeDifference(0.75, 4, 0.5, 4)!;
    expect(d.estimate).toBeCloseTo(0.25, 12);
    expect(d.low).toBeLessThan(-0.3);
    expect(d.high).toBeGreaterThan(0.6);
  });

  it("a difference of means over several benchmarks combines every rate's limits", () => {
    // (a1 + a2)/2 − (b1 + b2)/2 with one benchmark equal: half of the single-benchmark difference, narrower than it.
    const one = newcombeDifference(9 / 10, 10, 3 / 10, 10)!;
    const two = moverLinear([
      { coef: 0.5, p: 0.9, n: 10 },
      { coef: 0.5, p: 0.5, n: 10 },
      { coef: -0.5, p: 0.3, n: 10 },
      { coef: -0.5, p: 0.5, n: 10 },
    ])!;
    expect(two.estimate).toBeCloseTo(0.3, 12);
    expect(two.low).toBeGreaterThan(one.low / 2 - 0.1);
    expect(two.high - two.low).toBeLessThan(one.high - one.low);
    // With one term it is the Wilson interval itself.
    const single = moverLinear([{ coef: 1, p: 81 / 263, n: 263 }])!;
    close(single, 0.2553, 0.3662);
    expect(moverLinear([{ coef: 1, p: 0.5, n: 0 }])).toBeNull();
  });

  it("formats in percentage points", () => {
    expect(formatIntervalPct({ low: 0.0524, high: 0.3339 })).toBe("[5.2, 33.4]");
    expect(formatIntervalPct({ low: -0.381, high: 0.6 })).toBe("[-38.1, 60.0]");
    expect(formatIntervalPct(null)).toBe("");
  });
});
