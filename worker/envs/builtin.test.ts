import { describe, expect, it } from "vitest";
import { parseRunConfig, quickstartPreset, type RunConfig } from "../../contracts/run-config";
import { builtinInstances } from "./builtin";

function configWith(data: Record<string, unknown>): RunConfig {
  const parsed = parseRunConfig({ ...quickstartPreset, data: { ...quickstartPreset.data, ...data } });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
}

const idsOver = (config: RunConfig, steps: number) => {
  const source = builtinInstances(config);
  return Array.from({ length: steps }, (_, i) => source.forStep(i + 1).map((inst) => inst.id));
};

describe("builtinInstances", () => {
  it("draws every step from a fixed pool of poolSize distinct tasks", () => {
    const steps = idsOver(configWith({ poolSize: 12, instancesPerStep: 8, seed: 3 }), 20);
    const seen = new Set(steps.flat());
    expect(seen.size).toBe(12);
    for (const ids of steps) {
      expect(ids).toHaveLength(8);
      expect(new Set(ids).size).toBe(8); // no repeats within a step
    }
    // Steps differ (a fresh seeded shuffle each step) and replay identically (resume).
    expect(steps[0]).not.toEqual(steps[1]);
    expect(idsOver(configWith({ poolSize: 12, instancesPerStep: 8, seed: 3 }), 20)).toEqual(steps);
    // Another seed, another pool.
    const other = new Set(idsOver(configWith({ poolSize: 12, instancesPerStep: 8, seed: 4 }), 20).flat());
    expect([...other].filter((id) => seen.has(id)).length).toBeLessThan(12);
  });

  it("samples the whole split without a pool, and caps a pool at the split's size", () => {
    expect(new Set(idsOver(configWith({ poolSize: undefined, instancesPerStep: 8 }), 20).flat()).size).toBeGreaterThan(60);
    const all = new Set(idsOver(configWith({ poolSize: 100_000, instancesPerStep: 8 }), 40).flat());
    expect(all.size).toBeGreaterThan(100);
  });

  it("draws exactly the instances earlier versions drew for the same (seed, step), so resumed runs replay", () => {
    const pooled = builtinInstances(configWith({ poolSize: 12, instancesPerStep: 4, seed: 3 }));
    expect(pooled.forStep(1).map((i) => i.id)).toEqual(["shop-compare-mug-pen-1", "shop-stock-cap-0", "shop-compare-bag-tea-1", "shop-stock-pen-1"]);
    expect(pooled.forStep(5).map((i) => i.id)).toEqual(["shop-stock-cap-0", "shop-compare-cap-lamp-1", "shop-compare-cap-tea-1", "shop-compare-mug-tea-1"]);
    expect(pooled.evalSet().slice(0, 3).map((i) => i.id)).toEqual(["shop-compare-pen-bag-0", "shop-buy-pen-1-1", "shop-stock-lamp-0"]);
    const unpooled = builtinInstances(configWith({ poolSize: undefined, instancesPerStep: 4, seed: 3 }));
    expect(unpooled.forStep(2).map((i) => i.id)).toEqual(["shop-price-pen-1", "shop-compare-pen-lamp-1", "shop-compare-pen-mug-0", "shop-compare-mug-tea-0"]);
  });

  it("rejects a pool of zero tasks", () => {
    const parsed = parseRunConfig({ ...quickstartPreset, data: { ...quickstartPreset.data, poolSize: 0 } });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(JSON.stringify(parsed.errors)).toContain("data.poolSize");
  });
});
