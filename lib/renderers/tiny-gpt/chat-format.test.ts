import { describe, expect, it } from "vitest";
import { decode, renderCompletion, renderPrompt, stopTokens } from "./chat-format";
import { SPECIAL_TOKENS, VOCAB_SIZE, decode as decodeTokens, encodeText } from "./tokenizer";

describe("byte tokenizer", () => {
  it("round-trips UTF-8 text and names special tokens", () => {
    const text = "héllo → 世界 {\"a\":1}";
    const ids = encodeText(text);
    expect(ids.every((t) => t >= 0 && t < 256)).toBe(true);
    expect(decodeTokens(ids)).toBe(text);
    expect(decodeTokens([SPECIAL_TOKENS["<|user|>"], ...encodeText("x")])).toBe("<|user|>x");
    expect(decodeTokens([SPECIAL_TOKENS["<|user|>"], ...encodeText("x")], { skipSpecial: true })).toBe("x");
    expect(() => decodeTokens([VOCAB_SIZE])).toThrow(/outside the vocabulary/);
  });
});

describe("chat format", () => {
  it("renders roles, tool calls and tool results, and ends with the generation prompt", () => {
    const ids = renderPrompt(
      [
        { role: "system", content: "sys" },
        { role: "user", content: "buy a cap" },
        {
          role: "assistant",
          content: "<think>ok</think>",
          tool_calls: [{ id: "c1", type: "function", function: { name: "get_item", arguments: '{"item":"cap"}' } }],
        },
        { role: "tool", name: "get_item", content: '{"price":12}' },
      ],
      [{ type: "function", function: { name: "get_item", parameters: { type: "object", properties: {} } } }],
    );
    expect(decodeTokens(ids)).toBe(
      '<|system|>sys<|end|><|user|>buy a cap<|end|><|assistant|><think>ok</think>\n<tool_call>\n{"name":"get_item","arguments":{"item":"cap"}}\n</tool_call><|end|><|tool|>get_item\n{"price":12}<|end|><|assistant|>',
    );
  });

  it("completion targets end with the stop token and decode drops it", () => {
    const c = renderCompletion("done");
    expect(c[c.length - 1]).toBe(stopTokens[0]);
    expect(decode(c)).toBe("done");
    expect(decode(encodeText("partial"))).toBe("partial");
  });
});
