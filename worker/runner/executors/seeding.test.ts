import { describe, expect, it } from "vitest";
import type { GenerateRequest, GenerateResult, PolicyClient } from "../../engine/io";
import { passSeed } from "../../../lib/random";
import { seededPolicy } from "./seeding";

function recorder() {
  const seeds: (number | undefined)[] = [];
  const policy: PolicyClient = {
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      seeds.push(req.sampling.seed);
      return { text: "", promptTokens: [], tokens: [], logprobs: [], finishReason: "stop" };
    },
  };
  return { seeds, policy };
}

const req = (content: string): GenerateRequest => ({ role: "act", messages: [{ role: "user", content }], sampling: { temperature: 1, topP: 1, maxTokens: 8 } });

describe("seeded evaluation passes", () => {
  it("gives every pass its own seed, the same one when a pass is replayed", () => {
    const seeds = [1, 2, 3, 4].map((p) => passSeed(0, p));
    expect(new Set(seeds).size).toBe(4);
    expect(passSeed(0, 2)).toBe(seeds[1]);
    expect(passSeed(7, 2)).not.toBe(passSeed(0, 2));
    for (const s of seeds) expect(s).toBeLessThan(2 ** 31);
  });

  it("seeds a generation from the pass seed and the prompt, whatever order rollouts arrive in", async () => {
    const a = recorder();
    const b = recorder();
    const pa = seededPolicy(a.policy, 11);
    const pb = seededPolicy(b.policy, 11);
    await pa.generate(req("x"));
    await pa.generate(req("y"));
    await pb.generate(req("y"));
    await pb.generate(req("x"));
    expect(a.seeds).toEqual([b.seeds[1], b.seeds[0]]);
  });

  it("samples repeats of one prompt (the trials of a task) with different seeds, and other passes differently", async () => {
    const a = recorder();
    const p = seededPolicy(a.policy, 11);
    await p.generate(req("x"));
    await p.generate(req("x"));
    expect(a.seeds[0]).not.toBe(a.seeds[1]);
    const other = recorder();
    await seededPolicy(other.policy, 12).generate(req("x"));
    expect(other.seeds[0]).not.toBe(a.seeds[0]);
  });

  it("leaves a seed the caller set", async () => {
    const a = recorder();
    await seededPolicy(a.policy, 11).generate({ ...req("x"), sampling: { temperature: 1, topP: 1, maxTokens: 8, seed: 5 } });
    expect(a.seeds).toEqual([5]);
  });
});
