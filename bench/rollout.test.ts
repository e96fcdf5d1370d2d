import { describe, expect, it } from "vitest";
import { httpPolicy, inProcessPolicy, measure, startResponder } from "./rollout";

describe("rollout bench harness", () => {
  it("runs K rollouts per instance with the canned policy and counts every generation", async () => {
    // 3 calls + 1 reply per episode in the rehearse paradigm = 4 act + 3 rehearse generations.
    const r = await measure(inProcessPolicy(0, 3), 2, 2, 4);
    expect(r.rollouts).toBe(4);
    expect(r.generations).toBe(28);
    expect(r.meanMicroSteps).toBe(7);
    expect(r.generationsPerS).toBeGreaterThan(0);
  });

  it("drives the same episodes through the product's chat client over HTTP (vLLM-shaped replies: tool_calls, reasoning)", async () => {
    const { port, child } = await startResponder(0, 3);
    try {
      const r = await measure(httpPolicy(port, 4), 2, 2, 4);
      // The adapter's text must parse back into the same calls: else episodes would end early.
      expect(r.generations).toBe(28);
      expect(r.meanMicroSteps).toBe(7);
    } finally {
      child.kill();
    }
  });
});
