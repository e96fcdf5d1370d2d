/** Generated conversations for the explicit renderers' tests (qwen3.test.ts, llama31.test.ts): deterministic, with the edge cases templates trip on. */
import type { RenderMessage, RenderOptions, RenderTool, RenderToolCall } from "./types";
import { mulberry32 } from "../random";

/** The deterministic PRNG the generated conversations draw from (lib/random.ts). */
export const rng = mulberry32;

const FRAGMENTS = [
  "order",
  "refund",
  " ",
  "\n",
  "\n\n",
  "  ",
  "\t",
  "<think>",
  "</think>",
  "<tool_call>",
  "</tool_call>",
  "<tool_response>",
  "</tool_response>",
  "<|im_end|>",
  "<|im_start|>",
  "订单已发货",
  "émigré",
  "😀👍🏽",
  "👨‍👩‍👧",
  "e\u0301",
  '"quoted"',
  "back\\slash",
  "{\"a\": 1}",
  "12.50",
  "'s",
  "\r\n",
  "\u00a0",
  "\u200b",
];

function text(r: () => number, max = 8): string {
  const n = Math.floor(r() * max);
  let s = "";
  for (let i = 0; i < n; i++) s += FRAGMENTS[Math.floor(r() * FRAGMENTS.length)];
  return s;
}

const pick = <T,>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

export function jsonValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 2 ? 5 : 7));
  switch (k) {
    case 0:
      return text(r, 4);
    case 1:
      return Math.floor(r() * 2000) - 1000;
    case 2:
      return pick(r, [0.5, -3.25, 1e-7, 123456.789, 0]);
    case 3:
      return pick(r, [true, false, null]);
    case 4:
      return "";
    case 5:
      return Array.from({ length: Math.floor(r() * 3) }, () => jsonValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 4); i > 0; i--) o[pick(r, ["id", "name", "2", "10", "ключ", "a b", text(r, 2)])] = jsonValue(r, depth + 1);
      return o;
    }
  }
}

function toolCall(r: () => number, k: number): RenderToolCall {
  const args = jsonValue(r);
  const arguments_ = pick(r, ["json", "object", "raw"] as const);
  return {
    id: `call_${k}`,
    type: "function",
    function: {
      name: pick(r, ["get_order", "refund", "查询", "x"]),
      arguments:
        arguments_ === "raw"
          ? text(r, 3)
          : arguments_ === "object"
            ? ({ id: `o-${k}`, value: args } as Record<string, unknown>)
            : JSON.stringify({ id: `o-${k}`, value: args }),
    },
  };
}

function assistant(r: () => number, k: number, maxCalls: number): RenderMessage {
  const m: RenderMessage = { role: "assistant", content: "" };
  const shape = Math.floor(r() * 5);
  if (shape === 0) m.content = text(r);
  else if (shape === 1) m.content = `<think>${text(r)}</think>${text(r)}`;
  else if (shape === 2) m.content = `${text(r, 3)}<think>\n${text(r)}\n</think>\n\n${text(r)}</think>${text(r, 3)}`;
  else if (shape === 3) {
    m.content = text(r);
    m.reasoning_content = pick(r, [text(r), "", null]);
  } else m.content = "";
  const calls = Math.min(maxCalls, pick(r, [0, 0, 1, 1, 2, 3]));
  if (calls > 0 || r() < 0.1) m.tool_calls = Array.from({ length: calls }, (_, i) => toolCall(r, k * 10 + i));
  return m;
}

export function conversation(r: () => number, maxCalls = 3): RenderMessage[] {
  const out: RenderMessage[] = [];
  if (r() < 0.8) out.push({ role: "system", content: text(r, 12) });
  out.push({ role: "user", content: r() < 0.1 ? `<tool_response>${text(r)}</tool_response>` : text(r, 12) });
  const turns = Math.floor(r() * 7);
  for (let t = 0; t < turns; t++) {
    const kind = r();
    if (kind < 0.45) out.push(assistant(r, t, maxCalls));
    else if (kind < 0.75) for (let i = 1 + Math.floor(r() * 3); i > 0; i--) out.push({ role: "tool", name: "get_order", content: text(r) });
    else if (kind < 0.9) out.push({ role: "user", content: r() < 0.3 ? `<tool_response>\n${text(r)}\n</tool_response>` : text(r) });
    else out.push({ role: "system", content: text(r) });
  }
  return out;
}

function tools(r: () => number): RenderTool[] | undefined {
  const n = pick(r, [-1, 0, 1, 2, 4]);
  if (n < 0) return undefined;
  return Array.from({ length: n }, (_, i) => ({
    type: "function" as const,
    function: {
      name: `tool_${i}`,
      description: text(r, 5),
      parameters: { type: "object", properties: { id: { type: "string", description: text(r, 3) }, n: { type: "integer", minimum: -1, default: 2.5 }, extra: jsonValue(r) }, required: ["id"] },
    },
  }));
}

export function options(r: () => number): RenderOptions {
  return {
    tools: tools(r),
    addGenerationPrompt: r() < 0.7,
    parseToolArguments: r() < 0.5,
    ...(r() < 0.6 ? {} : { enableThinking: r() < 0.5 }),
  };
}

