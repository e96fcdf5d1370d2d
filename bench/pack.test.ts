import { describe, expect, it } from "vitest";
import { loadRenderer } from "../lib/renderers";
import { buildPackStep } from "./pack-data";
import { runPackBench } from "./pack";

describe("pack bench harness", () => {
  it("renders the step with the Qwen3 tokenizer: act prompts grow by each call and its result", () => {
    const qwen3 = loadRenderer("qwen3");
    const step = buildPackStep({ prompts: 1, rollouts: 1, turns: 3, responseTokens: 40 }, (m, tools) => qwen3.renderPrompt(m, { tools, history: "incremental" }));
    expect(step.data.map((d) => d.role)).toEqual(["act", "rehearse", "act", "rehearse", "act", "rehearse"]);
    const [act0, , act1] = step.data;
    // Turn 2's act prompt starts with turn 1's act prompt (the conversation only grows).
    expect(act1.promptTokens.slice(0, act0.promptTokens.length)).toEqual(act0.promptTokens);
    expect(act0.responseTokens.at(-1)).toBe(151645); // <|im_end|> closes every generation
    expect(step.data.every((d) => d.logprobs.length === d.responseTokens.length && d.advantages.length === d.responseTokens.length)).toBe(true);
  });

  it("posts every chunk as protobuf within the byte limit and reports the figures", async () => {
    const r = await runPackBench({ prompts: 2, rollouts: 2, turns: 2, responseTokens: 40 });
    expect(r.datums).toBe(16);
    expect(r.bodies.length).toBeGreaterThan(0);
    expect(Math.max(...r.bodies)).toBeLessThanOrEqual(5_000_000);
    expect(r.packCpuS).toBeGreaterThan(0);
    expect(r.maxStallMs).toBeGreaterThanOrEqual(0);
  });
});
