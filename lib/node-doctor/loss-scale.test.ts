import { describe, expect, it } from "vitest";
import { candidateLosses, LOSS_SCALE_DATUMS } from "./loss-scale";

describe("the loss-scale probe", () => {
  it("tells every reduction apart: each candidate value is distinct, so a reported value names one", () => {
    const advantages = LOSS_SCALE_DATUMS.map((d) => Array.from({ length: d.targets }, (_, i) => (i >= d.targets - d.advantaged ? d.advantage : 0)));
    const weights = advantages.map((row) => row.map((a) => (a !== 0 ? 1 : 0)));
    const c = Object.fromEntries(candidateLosses({ advantages, weights }).map((x) => [x.name, x.value]));
    expect(c["token-sum"]).toBeCloseTo(-5.5);
    expect(c["per-datum-mean"]).toBeCloseTo(-0.75); // (−3/3 + −2.5/5) / 2
    expect(c["sum divided by the datums in the request (a per-request mean)"]).toBeCloseTo(-2.75);
    expect(c["mean over the advantaged tokens"]).toBeCloseTo(-5.5 / 8);
    expect(c["mean over every target token"]).toBeCloseTo(-5.5 / 20);
    const values = Object.values(c);
    for (let i = 0; i < values.length; i++) for (let j = i + 1; j < values.length; j++) expect(Math.abs(values[i]! - values[j]!)).toBeGreaterThan(0.05);
  });
});
