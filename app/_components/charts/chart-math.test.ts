import { describe, expect, it } from "vitest";
import { chartBase, ema, formatSeconds, formatTick, groupPanels, nearestIndex, niceTicks } from "./chart-math";

describe("ema", () => {
  it("is the identity at weight 0 and debiased from the first point", () => {
    expect(ema([1, 2, 3], 0)).toEqual([1, 2, 3]);
    const s = ema([10, 10, 10], 0.9);
    // Debiasing: a constant series stays constant instead of ramping up from 0.
    s.forEach((v) => expect(v).toBeCloseTo(10, 10));
  });

  it("smooths a step change gradually and skips non-finite values", () => {
    const s = ema([0, 0, 10, 10], 0.5);
    expect(s[0]).toBe(0);
    expect(s[2]).toBeCloseTo(10 * 0.5 / (1 - 0.125), 10);
    expect(s[3]).toBeGreaterThan(s[2]!);
    expect(s[3]).toBeLessThan(10);
    expect(ema([1, Number.NaN, 1], 0.5)[1]).toBeNaN();
  });
});

describe("groupPanels", () => {
  it("groups keys into known families and mean/min/max into one chart", () => {
    const panels = groupPanels([
      "critic/act/advantages/max",
      "critic/act/advantages/mean",
      "critic/act/advantages/min",
      "critic/rehearse/score/mean",
      "fidelity/mean",
      "actor/ppo_kl",
      "actor/entropy_loss",
      "perf/throughput",
      "timing_s/step",
      "val/avg@4",
      "judge/pass_rate",
      "response_length/mean",
      "weird",
    ]);
    expect(panels.map((p) => p.id)).toEqual(["reward", "advantage", "fidelity", "judge", "length", "actor", "val", "perf", "timing", "other"]);
    expect(panels.find((p) => p.id === "advantage")!.charts).toEqual([
      { base: "critic/act/advantages", keys: ["critic/act/advantages/mean", "critic/act/advantages/min", "critic/act/advantages/max"] },
    ]);
    expect(panels.find((p) => p.id === "reward")!.charts).toEqual([{ base: "critic/rehearse/score", keys: ["critic/rehearse/score/mean"] }]);
    expect(panels.find((p) => p.id === "actor")!.charts.map((c) => c.base)).toEqual(["actor/entropy_loss", "actor/ppo_kl"]);
    expect(panels.find((p) => p.id === "other")!.charts).toEqual([{ base: "weird", keys: ["weird"] }]);
    expect(groupPanels(["reward/act/mean", "reward/mean"])[0]!.charts.map((c) => c.base)).toEqual(["reward", "reward/act"]);
  });

  it("charts the share of failed generations in its own open panel", () => {
    const panels = groupPanels(["reward/mean", "generation/failed_share", "generation/failed", "generation/attempted"]);
    expect(panels.map((p) => p.id)).toEqual(["reward", "generation"]);
    expect(panels[1]!.charts.map((c) => c.base)).toEqual(["generation/attempted", "generation/failed", "generation/failed_share"]);
  });

  it("gives each evaluation suite its own panel of val/<suite>/ keys, after the run's own validation", () => {
    const suites = [{ name: "bfcl", dataset: "bfcl:multi_turn_base" }, { name: "retail" }];
    const panels = groupPanels(["val/reward/mean", "val/bfcl/reward/mean", "val/bfcl/pass@2", "val/retail/tau2/pass^1", "val/retailer/x", "perf/throughput"], suites);
    expect(panels.map((p) => [p.id, p.title])).toEqual([
      ["val", "Validation"],
      ["suite:bfcl", "Evaluation suite bfcl (bfcl:multi_turn_base)"],
      ["suite:retail", "Evaluation suite retail"],
      ["perf", "Throughput"],
    ]);
    expect(panels[0]!.charts.map((c) => c.base)).toEqual(["val/retailer/x", "val/reward"]);
    expect(panels[1]!.charts.map((c) => c.base)).toEqual(["val/bfcl/pass@2", "val/bfcl/reward"]);
    // Without suites, every val/ key is the run's own validation.
    expect(groupPanels(["val/bfcl/reward/mean"]).map((p) => p.id)).toEqual(["val"]);
  });

  it("keeps keys whose last segment is not a statistic on their own chart", () => {
    expect(chartBase("val/pass@4")).toBe("val/pass@4");
    expect(chartBase("reward/mean")).toBe("reward");
    expect(chartBase("mean")).toBe("mean");
  });
});

describe("axis helpers", () => {
  it("makes round ticks inside the range", () => {
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0.13, 0.61, 4)).toEqual([0.2, 0.4, 0.6]);
    expect(niceTicks(3, 3)).toEqual([3]);
    expect(niceTicks(1, 3, 5, true)).toEqual([1, 2, 3]);
    expect(niceTicks(1, 3, 5)).toEqual([1, 1.5, 2, 2.5, 3]);
    expect(niceTicks(Number.NaN, 1)).toEqual([]);
  });

  it("formats ticks and durations compactly", () => {
    expect(formatTick(0.123456)).toBe("0.1235");
    expect(formatTick(12345)).toBe("12.3k");
    expect(formatTick(0.00001)).toBe("1.0e-5");
    expect(formatSeconds(90)).toBe("90s");
    expect(formatSeconds(600)).toBe("10m");
    expect(formatSeconds(7200)).toBe("2h");
  });

  it("finds the nearest x by binary search", () => {
    const xs = [0, 10, 20, 30];
    expect(nearestIndex(xs, 14)).toBe(1);
    expect(nearestIndex(xs, 16)).toBe(2);
    expect(nearestIndex(xs, -5)).toBe(0);
    expect(nearestIndex(xs, 99)).toBe(3);
    expect(nearestIndex([], 1)).toBe(-1);
  });
});
