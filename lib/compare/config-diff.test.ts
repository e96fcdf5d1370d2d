import { describe, expect, it } from "vitest";
import { diffConfigs, flattenConfig, formatConfigValue } from "./config-diff";

describe("flattenConfig", () => {
  it("flattens nested objects to dotted paths and keeps arrays and empty objects as leaves", () => {
    const flat = flattenConfig({ a: { b: 1, c: { d: "x" } }, list: [1, 2], empty: {}, n: null });
    expect(Object.fromEntries(flat)).toEqual({ "a.b": 1, "a.c.d": "x", list: [1, 2], empty: {}, n: null });
  });
});

describe("diffConfigs", () => {
  it("returns only the differing nested paths, with one value per run", () => {
    const a = { optim: { lr: 1e-6, clip: { low: 0.2, high: 0.2 } }, rollout: { paradigm: "rehearse", k: 4 }, tags: ["x"] };
    const b = { optim: { lr: 2e-6, clip: { low: 0.2, high: 0.28 } }, rollout: { paradigm: "rehearse", k: 4 }, tags: ["x"] };
    expect(diffConfigs([a, b])).toEqual([
      { path: "optim.clip.high", values: [0.2, 0.28] },
      { path: "optim.lr", values: [1e-6, 2e-6] },
    ]);
  });

  it("reports paths present in one config only as absent in the others", () => {
    const rows = diffConfigs([{ rollout: { simulator: { node: "sim" } } }, { rollout: {} }, { rollout: { simulator: { node: "sim" } } }]);
    expect(rows).toEqual([{ path: "rollout.simulator.node", values: ["sim", undefined, "sim"] }]);
  });

  it("compares arrays and objects by value, ignoring key order", () => {
    expect(diffConfigs([{ a: [1, { x: 1, y: 2 }] }, { a: [1, { y: 2, x: 1 }] }])).toEqual([]);
    expect(diffConfigs([{ a: [1, 2] }, { a: [2, 1] }])).toEqual([{ path: "a", values: [[1, 2], [2, 1]] }]);
  });

  it("distinguishes null, absent, 0, false and the string '0'", () => {
    const rows = diffConfigs([{ v: null }, {}, { v: 0 }, { v: false }, { v: "0" }]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.values).toEqual([null, undefined, 0, false, "0"]);
  });

  it("finds nothing to show for identical configs or a single config", () => {
    const c = { a: { b: 1 } };
    expect(diffConfigs([c, structuredClone(c)])).toEqual([]);
    expect(diffConfigs([c])).toEqual([]);
  });

  it("formats values for table cells", () => {
    expect(formatConfigValue(undefined)).toBe("(absent)");
    expect(formatConfigValue("rehearse")).toBe("rehearse");
    expect(formatConfigValue([1, 2])).toBe("[1,2]");
    expect(formatConfigValue(null)).toBe("null");
  });
});
