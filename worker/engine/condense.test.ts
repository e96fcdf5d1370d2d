/** Condensed transcripts: thinking goes first, the actions never, the rest fits the token bound. */
import { describe, expect, it } from "vitest";
import { loadRenderer } from "../../lib/renderers/registry";
import { condenseTranscript, ELISION, shareBudget, shortenTo, splitThinkBlocks } from "./condense";
import type { ChatMessage } from "./io";

const words = (n: number, w = "word") => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");
/** One token per whitespace-separated word (and per marker): easy to reason about in assertions. */
const countWords = (t: string) => t.split(/\s+/).filter(Boolean).length;

function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } };
}

/** A long attempt: verbose thinking, long user and tool texts, many calls. */
function longAttempt(calls: number): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "user", content: `Please help: ${words(300, "need")}` }];
  for (let i = 0; i < calls; i++) {
    out.push({
      role: "assistant",
      content: `<think>${words(400, `ponder${i}_`)}</think>Let me check item ${i}.`,
      tool_calls: [call(`c${i}`, i % 2 ? "add_to_cart" : "get_item", { name: `item-${i}`, qty: i + 1, note: "é ü" })],
    });
    out.push({ role: "tool", name: i % 2 ? "add_to_cart" : "get_item", content: JSON.stringify({ rows: words(250, `row${i}_`) }) });
  }
  out.push({ role: "assistant", content: `<think>${words(500, "final")}</think>Done: ${words(200, "summary")}` });
  return out;
}

describe("condenseTranscript", () => {
  it("keeps every action verbatim and fits the bound, shortening the rest", () => {
    const messages = longAttempt(12);
    const c = condenseTranscript(messages, { maxTokens: 300, thinkingTokens: 0, countTokens: countWords });
    for (const m of messages)
      for (const tc of m.tool_calls ?? []) expect(c.text).toContain(`Call: ${tc.function.name} ${tc.function.arguments}`);
    expect(c.actions).toBe(12);
    expect(c.shortened).toBe(true);
    expect(c.tokens).toBeLessThanOrEqual(300);
    expect(countWords(c.text)).toBeLessThanOrEqual(300);
    // Thinking is stripped before anything else is cut.
    expect(c.text).not.toMatch(/ponder|final\d/);
    expect(c.text).toContain(ELISION.trim());
    // Heads and tails of shortened texts survive.
    expect(c.text).toContain("Please help: need0");
  });

  it("keeps the actions even when they alone exceed the bound", () => {
    const messages = longAttempt(30);
    const c = condenseTranscript(messages, { maxTokens: 20, thinkingTokens: 0, countTokens: countWords });
    for (const m of messages) for (const tc of m.tool_calls ?? []) expect(c.text).toContain(tc.function.arguments);
    expect(c.tokens).toBeGreaterThan(20);
  });

  it("leaves a transcript within the bound untouched (apart from stripped thinking)", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Is the pen in stock?" },
      { role: "assistant", content: "<think>check it</think>", tool_calls: [call("a", "get_item", { name: "pen" })] },
      { role: "tool", name: "get_item", content: '{"stock": 3}' },
      { role: "assistant", content: "<think>three left</think>Yes, 3 pens." },
    ];
    const c = condenseTranscript(messages, { maxTokens: 1000, thinkingTokens: 0 });
    expect(c.text).toBe('User: Is the pen in stock?\nCall: get_item {"name":"pen"}\nResult of get_item: {"stock": 3}\nAssistant: Yes, 3 pens.');
    expect(c.shortened).toBe(false);
  });

  it("bounds thinking per message when thinkingTokens > 0", () => {
    const messages: ChatMessage[] = [{ role: "assistant", content: `<think>${words(50, "t")}</think>ok` }];
    const c = condenseTranscript(messages, { maxTokens: 1000, thinkingTokens: 5, countTokens: countWords });
    expect(c.text).toBe("Thinking: t0 t1 t2 t3 t4 …\nAssistant: ok");
    // An unclosed block (a truncated generation) is thinking to its end.
    expect(splitThinkBlocks("<think>a b c")).toEqual({ thinking: "a b c", visible: "" });
    expect(splitThinkBlocks("x<think>a</think>y<think>b</think>z")).toEqual({ thinking: "a\nb", visible: "xyz" });
  });

  it("counts with the policy's renderer", () => {
    const renderer = loadRenderer("tiny-gpt");
    const messages = longAttempt(4);
    const c = condenseTranscript(messages, { maxTokens: 700, thinkingTokens: 0, countTokens: (t) => renderer.countTokens(t) });
    expect(renderer.countTokens(c.text)).toBeLessThanOrEqual(700);
    for (const m of messages) for (const tc of m.tool_calls ?? []) expect(c.text).toContain(tc.function.arguments);
  });
});

describe("budget helpers", () => {
  it("water-fills: small texts keep all, large ones share the rest equally", () => {
    expect(shareBudget([2, 50, 100], 40)).toEqual([2, 19, 19]);
    expect(shareBudget([5, 5], 100)).toEqual([5, 5]);
    expect(shareBudget([10, 10], -3)).toEqual([0, 0]);
  });
  it("shortens to head and tail around the marker", () => {
    expect(shortenTo(words(20), 7, countWords)).toBe(`word0 word1 word2 word3${ELISION}word18 word19`);
    expect(shortenTo("short", 7, countWords)).toBe("short");
  });
});
