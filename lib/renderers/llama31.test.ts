/**
 * The explicit Llama 3.1 renderer (llama31.ts) against the Jinja interpreter rendering Meta's Llama 3.1
 * Instruct template: byte-equal text and equal ids over generated conversations and edge cases.
 */
import { Template } from "@huggingface/jinja";
import { describe, expect, it } from "vitest";
import { conversation, jsonValue, options, rng } from "./conversations.test-helpers";
import { HfChatRenderer } from "./hf";
import { jinjaToJson } from "./jinja-values";
import { LLAMA31_INSTRUCT_TEMPLATE, renderLlama31 } from "./llama31";
import { builtinSpec } from "./registry";
import type { RenderMessage, RenderOptions } from "./types";

const spec = builtinSpec("llama3.1");
const fast = new HfChatRenderer(spec);
const reference = new HfChatRenderer({ ...spec, explicitTemplate: false });

function outcome(renderer: HfChatRenderer, messages: RenderMessage[], opts: RenderOptions) {
  try {
    return { text: renderer.renderText(messages, opts), ids: renderer.renderPrompt(messages, opts) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const context = (messages: RenderMessage[], opts: RenderOptions) => ({
  bos_token: "<|begin_of_text|>",
  messages: messages.map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined))),
  tools: opts.tools ?? null,
  add_generation_prompt: opts.addGenerationPrompt ?? true,
});

describe("explicit Llama 3.1 renderer vs the Jinja interpreter on Meta's template", () => {
  it("the built-in renderer's template is the one written out, and takes the explicit path", () => {
    expect(spec.chatTemplate).toBe(LLAMA31_INSTRUCT_TEMPLATE);
    expect(renderLlama31(context([{ role: "user", content: " hi " }], {}))).toBe(
      "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
    );
  });

  it("400 generated conversations (one tool call per message, and some with more): byte-equal text and equal ids", () => {
    const r = rng(17);
    let explicit = 0;
    for (let i = 0; i < 400; i++) {
      const messages = conversation(r, i % 4 === 0 ? 3 : 1);
      const opts = options(r);
      expect(outcome(fast, messages, opts), JSON.stringify({ messages, opts })).toEqual(outcome(reference, messages, opts));
      if (!opts.parseToolArguments && renderLlama31(context(messages, opts)) !== null) explicit++;
    }
    expect(explicit).toBeGreaterThan(100);
  });

  it("edge cases", () => {
    const cases: Array<[RenderMessage[], RenderOptions]> = [
      [[{ role: "user", content: "" }], {}],
      [[{ role: "system", content: "  s  " }], { tools: [] }],
      [[{ role: "system", content: "s" }], { tools: [{ type: "function", function: { name: "f", parameters: { a: [], b: {}, c: [1, { d: "ü" }] } } }] }],
      [[{ role: "user", content: "q" }, { role: "assistant", content: "", tool_calls: [{ type: "function", function: { name: "f", arguments: '{"a": 1}' } }] }, { role: "tool", content: "r" }, { role: "tool", content: "" }], {}],
      [[{ role: "user", content: "q" }, { role: "assistant", content: "", tool_calls: [] }], {}],
      [[{ role: "user", content: "q" }, { role: "tool", content: null }], {}],
      [[], {}],
    ];
    for (const [messages, opts] of cases) expect(outcome(fast, messages, opts), JSON.stringify({ messages, opts })).toEqual(outcome(reference, messages, opts));
  });

  it("tojson(indent=4) as the interpreter writes it", () => {
    const r = rng(5);
    const t = new Template("{{ v | tojson(indent=4) }}");
    for (let i = 0; i < 300; i++) {
      const v = jsonValue(r);
      expect(jinjaToJson(v, 4)).toBe(t.render({ v }));
    }
  });
});
