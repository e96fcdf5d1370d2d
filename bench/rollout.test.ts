import { describe, expect, it } from "vitest";
import { inProcessPolicy, measure } from "./rollout";

describe("rollout bench harness", () => {
  it("runs K rollouts per instance with the canned policy and counts every generation", async () => {
    // 3 calls + 1 reply per episode in the rehearse paradigm = 4 act + 3 rehearse generations.
    const r = await measure(inProcessPolicy(0, 3), 2, 2, 4);
    expect(r.rollouts).toBe(4);
    expect(r.generations).toBe(28);
    expect(r.meanMicroSteps).toBe(7);
    expect(r.generationsPerS).toBeGreaterThan(0);
  });
});
