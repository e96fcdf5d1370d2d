import { describe, expect, it, vi } from "vitest";
import { HfChatRenderer } from "./hf";
import { policyRenderOptions } from "./policy-options";
import { loadRenderer } from "./registry";
import type { PromptCache, RenderMessage, RenderOptions, RenderTool } from "./types";

const qwen3 = () => loadRenderer("qwen3") as HfChatRenderer;

const tools: RenderTool[] = [
  { type: "function", function: { name: "get_order", description: "Look up an order.", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } } },
  { type: "function", function: { name: "refund", description: "Refund an order.", parameters: { type: "object", properties: { id: { type: "string" }, amount: { type: "number" } } } } },
];

const call = (k: number, name = "get_order") => ({ id: `call_${k}`, type: "function" as const, function: { name, arguments: JSON.stringify({ id: `o-${k}` }) } });

/** A rollout's conversation: tool loops, a run of two tool messages, a second user turn, a reply. */
function conversation(): RenderMessage[] {
  return [
    { role: "system", content: "You are a shop assistant." },
    { role: "user", content: "Where is my order o-1? Also refund o-2." },
    { role: "assistant", content: "<think>\nThe user wants order o-1 looked up first.\n</think>\n\n", tool_calls: [call(1)] },
    { role: "tool", name: "get_order", content: '{"id": "o-1", "status": "shipped"}' },
    { role: "assistant", content: "<think>\nNow both: look up o-2 and refund it.\n</think>\n\n", tool_calls: [call(2), call(3, "refund")] },
    { role: "tool", name: "get_order", content: '{"id": "o-2", "total": 12.5}' },
    { role: "tool", name: "refund", content: '{"ok": true}' },
    { role: "assistant", content: "<think>\nDone; tell the user.\n</think>\n\nYour order o-1 has shipped and o-2 is refunded." },
    { role: "user", content: "Thanks! And o-3?" },
    { role: "assistant", content: "<think>\nLook up o-3.\n</think>\n\n", tool_calls: [call(4)] },
    { role: "tool", name: "get_order", content: '{"id": "o-3", "status": "pending"}' },
  ];
}

/** The act prompts of that conversation: every prefix that ends where an assistant message comes next, and the end. */
function actPrefixes(messages: RenderMessage[]): RenderMessage[][] {
  const out: RenderMessage[][] = [];
  for (let n = 2; n <= messages.length; n++) if (n === messages.length || messages[n].role === "assistant") out.push(messages.slice(0, n));
  return out;
}

/** The ids of a render from scratch, tokenised by the tokenizer library itself. */
const fullIds = (r: HfChatRenderer, messages: RenderMessage[], options: RenderOptions) => r.encodeUncached(r.renderText(messages, options));

describe("per-rollout prompt cache (incremental history)", () => {
  for (const thinking of [undefined, false] as const) {
    it(`each act prompt renders only its new messages, ids equal to a full render (enableThinking ${String(thinking)})`, () => {
      const r = qwen3();
      const options = policyRenderOptions(tools, thinking);
      const cache: PromptCache = {};
      const encode = vi.spyOn(r, "encode");
      let previous: number[] = [];
      for (const [k, prompt] of actPrefixes(conversation()).entries()) {
        encode.mockClear();
        const ids = r.renderPrompt(prompt, options, cache);
        const calls = encode.mock.calls.length;
        expect(ids).toEqual(fullIds(r, prompt, options));
        expect(ids).toEqual(r.renderPrompt(prompt, options));
        // Once the cache holds a render with an assistant turn, none of its pieces is rendered or
        // tokenised again: only the new ones (generation prompt, assistant message, its tool results, generation prompt).
        if (k >= 2) expect(calls).toBeLessThanOrEqual(4);
        if (thinking === undefined && previous.length) expect(ids.slice(0, previous.length)).toEqual(previous);
        previous = ids;
      }
      encode.mockRestore();
    });
  }

  it("a prompt that does not extend the cached one (an earlier message replaced or changed in place, other tools) is rendered from scratch", () => {
    const r = qwen3();
    const options = policyRenderOptions(tools, undefined);
    const messages = conversation();
    const cache: PromptCache = {};
    r.renderPrompt(messages.slice(0, 4), options, cache);
    // Replaced: another assistant message at index 2.
    const replaced = [...messages.slice(0, 2), { ...messages[2], content: "<think>\nSomething else.\n</think>\n\n" }, messages[3]];
    expect(r.renderPrompt(replaced, options, cache)).toEqual(fullIds(r, replaced, options));
    // Changed in place (same object, new content).
    const own = conversation();
    r.renderPrompt(own.slice(0, 4), options, cache);
    own[3].content = '{"id": "o-1", "status": "lost"}';
    expect(r.renderPrompt(own.slice(0, 5), options, cache)).toEqual(fullIds(r, own.slice(0, 5), options));
    // Other options.
    const fewer = policyRenderOptions(tools.slice(0, 1), undefined);
    expect(r.renderPrompt(own.slice(0, 5), fewer, cache)).toEqual(fullIds(r, own.slice(0, 5), fewer));
    // A shorter prompt than the cached one.
    expect(r.renderPrompt(own.slice(0, 3), options, cache)).toEqual(fullIds(r, own.slice(0, 3), options));
  });

  it("a cut inside a run of tool messages is not resumed (they render as one piece)", () => {
    const r = qwen3();
    const options = policyRenderOptions(tools, undefined);
    const messages = conversation();
    const cache: PromptCache = {};
    r.renderPrompt(messages.slice(0, 6), options, cache); // ends after the first of two tool messages
    expect(r.renderPrompt(messages.slice(0, 7), options, cache)).toEqual(fullIds(r, messages.slice(0, 7), options));
  });

  it("template history: Qwen3 drops earlier turns' <think> after a new user message — not a prefix extension, and the ids still equal a full tokenisation", () => {
    const r = qwen3();
    const options: RenderOptions = { tools, addGenerationPrompt: true };
    const messages = conversation();
    const before = r.renderPrompt(messages.slice(0, 8), options);
    const after = r.renderPrompt(messages.slice(0, 9), options);
    expect(r.renderText(messages.slice(0, 9), options).startsWith(r.renderText(messages.slice(0, 8), { ...options, addGenerationPrompt: false }))).toBe(false);
    expect(after.slice(0, before.length)).not.toEqual(before);
    expect(before).toEqual(fullIds(r, messages.slice(0, 8), options));
    expect(after).toEqual(fullIds(r, messages.slice(0, 9), options));
    // A cache passed with template history changes nothing.
    expect(r.renderPrompt(messages.slice(0, 9), options, {})).toEqual(after);
  });

  it("Qwen3's template writes tools into the first system block only: a message after the sentinel renders the same without them", () => {
    const r = qwen3();
    const sentinel: RenderMessage[] = [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "I am a user." },
    ];
    const messages = conversation();
    const groups: RenderMessage[][] = [[messages[2]], [messages[3]], [messages[5], messages[6]], [messages[7]], [messages[8]], [{ role: "system", content: "A later system note." }]];
    for (const thinking of [undefined, false]) {
      for (const group of groups) {
        const tail = (o: RenderOptions) => {
          const base = r.renderText(sentinel, { ...o, addGenerationPrompt: false });
          const text = r.renderText([...sentinel, ...group], { ...o, addGenerationPrompt: false });
          expect(text.startsWith(base)).toBe(true);
          return text.slice(base.length);
        };
        expect(tail({ tools, enableThinking: thinking, parseToolArguments: true })).toBe(tail({ enableThinking: thinking, parseToolArguments: true }));
      }
    }
  });
});
