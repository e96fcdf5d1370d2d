import { describe, expect, it } from "vitest";
import { bucketPlan, ROLLUP_WIDTHS } from "./rollup";

describe("bucketPlan", () => {
  it("keeps short series on raw points, bucketed from their first step", () => {
    expect(bucketPlan(1, 4, 100)).toEqual({ mode: "raw", width: 1 });
    expect(bucketPlan(1, 1000, 500)).toEqual({ mode: "raw", width: 2 });
  });

  it("reads the widest rollup level that fits, with a chart width that is a multiple of it", () => {
    const plan = bucketPlan(1, 100_000, 500);
    expect(plan).toMatchObject({ mode: "rollup", level: 32, width: 224, firstBucket: 1, lastBucket: 3124 });
    expect(bucketPlan(1, 20_000, 300)).toMatchObject({ mode: "rollup", level: 32, width: 96 });
    expect(bucketPlan(0, 10_000_000, 300)).toMatchObject({ mode: "rollup", level: 2048 });
  });

  it("never returns more than maxPoints buckets, and at least half as many as a free width would", () => {
    for (const [lo, hi, max] of [[1, 100_000, 500], [0, 4095, 1024], [-5000, 17, 37], [7, 20_007, 300], [1, 1_000_000, 2]] as const) {
      const plan = bucketPlan(lo, hi, max);
      const buckets = plan.mode === "raw" ? Math.ceil((hi - lo + 1) / plan.width) : Math.floor(hi / plan.width) - Math.floor(lo / plan.width) + 1;
      expect(buckets).toBeLessThanOrEqual(max);
      if (plan.mode === "rollup") {
        expect(ROLLUP_WIDTHS).toContain(plan.level);
        expect(plan.width % plan.level).toBe(0);
        expect(plan.width).toBeLessThanOrEqual(2 * Math.ceil((hi - lo + 1) / max) + plan.level);
        // The whole rollup buckets lie inside [lo, hi].
        expect(plan.firstBucket * plan.level).toBeGreaterThanOrEqual(lo);
        expect((plan.lastBucket + 1) * plan.level - 1).toBeLessThanOrEqual(hi);
      }
    }
  });
});
