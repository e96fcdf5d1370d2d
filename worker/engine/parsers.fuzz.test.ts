import { describe, expect, it } from "vitest";
import { mulberry32 as seededRandom } from "../../lib/random";
import { pyJsonLoads } from "../../lib/python/json";
import { compareResponses } from "./fidelity";
import { actErrorMessage } from "./messages";
import { parseActOutput, parseRehearseOutput, sanitizeText } from "./parsers";

const FRAGMENTS = [
  "<tool_call>",
  "</tool_call>",
  "\n<tool_call>\n",
  "\n</tool_call>",
  "<execution_result>",
  "\n<execution_result>\n",
  "\n</execution_result>",
  "<think>",
  "</think>",
  '{"name":',
  '"arguments":',
  '"parameters":',
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  '"',
  "\\",
  "null",
  "true",
  "1e999",
  "-0",
  '"error_tool_call"',
  "\uD800",
  "\uDFFF",
  "\u0000",
  "\uFFFE",
  "😀",
  "\n",
  " ",
  "__proto__",
  '{"__proto__":{"x":1}}',
  "constructor",
];

function randomText(rand: () => number): string {
  const parts: string[] = [];
  const n = Math.floor(rand() * 30);
  for (let i = 0; i < n; i++) {
    if (rand() < 0.7) parts.push(FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)]);
    else parts.push(String.fromCharCode(Math.floor(rand() * 0x10000)));
  }
  return parts.join("");
}

/** Both parsers must return a result (never throw), and their outputs must be well-formed. */
function checkBoth(text: string): void {
  const act = parseActOutput(text);
  expect(["reply", "tool_calls", "error"]).toContain(act.kind);
  if (act.kind === "tool_calls") for (const c of act.calls) expect(() => pyJsonLoads(c.argumentsJson)).not.toThrow();
  if (act.kind === "error") {
    expect(typeof act.payload.error_tool_call).toBe("string");
    const msg = actErrorMessage(act.payload);
    expect((pyJsonLoads(msg.content) as Map<string, unknown>).has("error_tool_call")).toBe(true);
    expect(sanitizeText(msg.content)).toBe(msg.content);
  }
  const reh = parseRehearseOutput(text);
  expect(() => pyJsonLoads(reh.content)).not.toThrow();
  expect(sanitizeText(reh.content)).toBe(reh.content);
  compareResponses(reh.content, text);
}

describe("parser fuzzing", () => {
  it("random fragment soups never throw", () => {
    const rand = seededRandom(12345);
    for (let i = 0; i < 3000; i++) checkBoth(randomText(rand));
  });

  it("tool-call and execution-result wrappers around random bodies never throw", () => {
    const rand = seededRandom(777);
    for (let i = 0; i < 1500; i++) {
      const body = randomText(rand);
      checkBoth(`<think>${body}</think>\n<tool_call>\n${body}\n</tool_call>`);
      checkBoth(`\n<execution_result>\n${body}\n</execution_result>`);
    }
  });

  it("adversarial inputs: deep nesting, huge strings, lone surrogates, non-strings", () => {
    const deepArr = "[".repeat(200_000) + "]".repeat(200_000);
    const deepObj = '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000);
    const huge = "x".repeat(5_000_000);
    const cases = [
      `\n<tool_call>\n{"name":"a","arguments":${deepArr}}\n</tool_call>`,
      `\n<tool_call>\n${deepObj}\n</tool_call>`,
      `\n<execution_result>\n${deepArr}\n</execution_result>`,
      `\n<execution_result>\n${deepObj}\n</execution_result>`,
      `\n<tool_call>\n{"name":"${huge}","arguments":{}}\n</tool_call>`,
      `\n<execution_result>\n{"k":"${huge}"}\n</execution_result>`,
      huge,
      "<tool_call>".repeat(100_000),
      "\n<tool_call>\n".repeat(50_000),
      "<think>".repeat(100_000) + "</think>",
      `\n<tool_call>\n{"name":"\uD800","arguments":{"k":"\uDC00\u0000"}}\n</tool_call>`,
      `\n<execution_result>\n{"k":"\\ud800"}\n</execution_result>`,
      "\uD800".repeat(10_000),
    ];
    for (const c of cases) checkBoth(c);
    // Lone surrogates decoded from JSON escapes are sanitised in what enters the conversation.
    const r = parseRehearseOutput('\n<execution_result>\n{"k":"\\ud800"}\n</execution_result>');
    expect(r.ok && r.content).toBe('{"k": "\uFFFD"}');
    for (const bad of [undefined, null, 42, {}] as unknown[]) {
      expect(parseActOutput(bad as string).kind).toBe("reply");
      expect(parseRehearseOutput(bad as string).ok).toBe(false);
    }
  });
});
