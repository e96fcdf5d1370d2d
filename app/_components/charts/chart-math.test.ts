import { describe, expect, it } from "vitest";
import { chartBase, ema, formatSeconds, formatTick, groupPanels, nearestIndex, niceTicks, overviewPanel, panelQueryKeys, roleTemplate, runChartKind } from "./chart-math";

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

  it("puts an evaluation's keys of a family in that family, its own scores in Validation", () => {
    const panels = groupPanels(["val/avg@4", "val/shop/test_score", "val/response_length/act/mean", "val/fidelity/score", "val/judge/pass_rate", "val/termination/finished"]);
    expect(Object.fromEntries(panels.map((p) => [p.id, p.charts.map((c) => c.base)]))).toEqual({
      fidelity: ["val/fidelity/score"],
      judge: ["val/judge/pass_rate"],
      length: ["val/response_length/act"],
      val: ["val/avg@4", "val/shop/test_score"],
      termination: ["val/termination/finished"],
    });
  });

  it("overlays act and rehearse on one chart per metric: each role's mean banded by its min and max", () => {
    expect(roleTemplate("critic/act/advantages/mean")).toEqual({ template: "critic/{role}/advantages/mean", role: "act" });
    expect(roleTemplate("val/rehearse/valid_action_ratio")).toEqual({ template: "val/{role}/valid_action_ratio", role: "rehearse" });
    expect(roleTemplate("termination/act_parse_error:EMPTY")).toBeNull();
    const keys = ["critic/act/advantages/max", "critic/act/advantages/mean", "critic/act/advantages/min", "critic/rehearse/advantages/mean", "critic/rehearse/advantages/min", "critic/rehearse/advantages/max", "rows/act", "rows/rehearse", "response_length/mean"];
    const panels = groupPanels(keys, { overlayRoles: true });
    expect(panels.find((p) => p.id === "advantage")!.charts).toEqual([
      {
        base: "critic/{role}/advantages",
        keys: ["critic/act/advantages/mean", "critic/act/advantages/min", "critic/act/advantages/max", "critic/rehearse/advantages/mean", "critic/rehearse/advantages/min", "critic/rehearse/advantages/max"],
        roles: [
          { role: "act", key: "critic/act/advantages/mean", min: "critic/act/advantages/min", max: "critic/act/advantages/max" },
          { role: "rehearse", key: "critic/rehearse/advantages/mean", min: "critic/rehearse/advantages/min", max: "critic/rehearse/advantages/max" },
        ],
      },
    ]);
    expect(panels.find((p) => p.id === "other")!.charts).toEqual([{ base: "rows/{role}", keys: ["rows/act", "rows/rehearse"], roles: [{ role: "act", key: "rows/act" }, { role: "rehearse", key: "rows/rehearse" }] }]);
    expect(panels.find((p) => p.id === "length")!.charts).toEqual([{ base: "response_length", keys: ["response_length/mean"] }]);
    // Without the option (the compare page) each role keeps its own chart.
    expect(groupPanels(keys).find((p) => p.id === "advantage")!.charts.map((c) => c.base)).toEqual(["critic/act/advantages", "critic/rehearse/advantages"]);
  });

  it("opens a run page on an overview chosen by the run's kind", () => {
    const train = [
      ...["episode/reward", "critic/act/score", "critic/rehearse/score", "critic/act/advantages", "critic/rehearse/advantages", "response_length/act", "response_length/rehearse", "prompt_length"].flatMap((b) => [`${b}/mean`, `${b}/min`, `${b}/max`]),
      "fidelity/score", "judge/pass_rate", "judge/calls", "actor/kl", "actor/entropy", "actor/loss", "actor/clip_frac", "generation/failed_share", "perf/throughput", "timing_s/step", "val/avg@4", "val/pass@4", "termination/finished",
    ];
    expect(overviewPanel("train", train)!.charts.map((c) => c.base)).toEqual([
      "episode/reward", "critic/{role}/score", "critic/{role}/advantages", "response_length/{role}", "fidelity/score", "judge/pass_rate", "val/avg@4", "val/pass@4", "actor/kl", "actor/entropy", "actor/loss", "generation/failed_share",
    ]);
    const evaluation = ["val/avg@4", "val/pass@4", "val/tau2:retail/test_score", "val/tau2/pass^1", "val/act/valid_action_ratio", "val/response_length/act/mean", "val/response_length/rehearse/mean", "val/fidelity/score", "val/judge/pass_rate", "val/perf/total_num_tokens", "val/testtime/private_tokens/mean", "val/testtime/attempts"];
    expect(overviewPanel("eval", evaluation)!.charts.map((c) => c.base)).toEqual([
      "val/avg@4", "val/pass@4", "val/tau2:retail/test_score", "val/tau2/pass^1", "val/{role}/valid_action_ratio", "val/response_length/{role}", "val/fidelity/score", "val/judge/pass_rate",
    ]);
    expect(overviewPanel("test-time", evaluation)!.charts.map((c) => c.base)).toEqual([
      "val/avg@4", "val/pass@4", "val/tau2:retail/test_score", "val/tau2/pass^1", "val/testtime/private_tokens", "val/testtime/attempts", "val/{role}/valid_action_ratio", "val/response_length/{role}", "val/fidelity/score", "val/judge/pass_rate",
    ]);
    expect(overviewPanel("train", ["reward/mean", "fidelity/mean", "perf/throughput"])!.charts.map((c) => c.base)).toEqual(["reward", "fidelity"]);
    expect(overviewPanel("eval", ["perf/throughput"])).toBeNull();
    expect(runChartKind({ kind: "train", config: {} })).toBe("train");
    expect(runChartKind({ kind: "eval", config: { testTime: { enabled: true } } })).toBe("test-time");
    expect(runChartKind({ kind: "eval", config: { testTime: { enabled: false } } })).toBe("eval");
  });

  it("asks for every key of a panel, in queries of at most 40 keys", () => {
    const panel = groupPanels(Array.from({ length: 95 }, (_, i) => `val/ds${String(i).padStart(2, "0")}/test_score`))[0]!;
    const queries = panelQueryKeys(panel);
    expect(queries.map((q) => q.length)).toEqual([40, 40, 15]);
    expect(new Set(queries.flat()).size).toBe(95);
  });

  it("gives each evaluation suite its own panel of val/<suite>/ keys, after the run's own validation", () => {
    const suites = [{ name: "bfcl", dataset: "bfcl:multi_turn_base" }, { name: "retail" }];
    const panels = groupPanels(["val/avg@4", "val/bfcl/reward/mean", "val/bfcl/pass@2", "val/retail/tau2/pass^1", "val/retailer/x", "perf/throughput"], { suites });
    expect(panels.map((p) => [p.id, p.title])).toEqual([
      ["val", "Validation"],
      ["suite:bfcl", "Evaluation suite bfcl (bfcl:multi_turn_base)"],
      ["suite:retail", "Evaluation suite retail"],
      ["perf", "Throughput"],
    ]);
    expect(panels[0]!.charts.map((c) => c.base)).toEqual(["val/avg@4", "val/retailer/x"]);
    expect(panels[1]!.charts.map((c) => c.base)).toEqual(["val/bfcl/pass@2", "val/bfcl/reward"]);
    // Without suites, every val/<x>/ key is the run's own validation.
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
