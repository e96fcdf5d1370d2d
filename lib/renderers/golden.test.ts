/**
 * The renderers reproduce Hugging Face's apply_chat_template text and ids exactly. Goldens come from
 * transformers itself (test/fixtures/renderers/generate_goldens.py, cross-checked with plain jinja2
 * configured like transformers).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadRenderer, parseRenderCases } from ".";

const fixtures = new URL("../../test/fixtures/renderers/", import.meta.url);
const goldens = (name: string) =>
  readFileSync(new URL(`golden-${name}.jsonl`, fixtures), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; text: string; ids: number[] });

for (const name of ["qwen3", "llama3.1"] as const) {
  describe(`${name} renderer vs HF apply_chat_template`, () => {
    const cases = parseRenderCases(JSON.parse(readFileSync(new URL(`cases-${name}.json`, fixtures), "utf8")));
    const expected = new Map(goldens(name).map((g) => [g.id, g]));
    it("has a golden for every case", () => {
      expect([...expected.keys()].sort()).toEqual(cases.map((c) => c.id).sort());
    });
    for (const c of cases) {
      it(c.id, () => {
        const renderer = loadRenderer(name);
        const options = { tools: c.tools, addGenerationPrompt: c.add_generation_prompt ?? false, ...(c.enable_thinking !== undefined ? { enableThinking: c.enable_thinking } : {}) };
        const golden = expected.get(c.id)!;
        expect(renderer.renderText(c.messages, options)).toBe(golden.text);
        expect(renderer.renderPrompt(c.messages, options)).toEqual(golden.ids);
      });
    }
  });
}
