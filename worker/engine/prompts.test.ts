import { describe, expect, it } from "vitest";
import type { ChatMessage, ToolSchema } from "./io";
import {
  buildCompactRehearsePrompt,
  buildRehearsePrompt,
  buildSimulatorPrompt,
  fewShotFromReference,
  parseSimulatorResponse,
  REHEARSE_SYSTEM_PROMPT,
  serializeHistory,
  SIMULATOR_RESPONSE_SCHEMA,
} from "./prompts";

const tools: ToolSchema[] = [
  { type: "function", function: { name: "get_item", description: "Price", parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] } } },
  { type: "function", function: { name: "checkout", parameters: { type: "object", properties: {} } } },
];
const history: ChatMessage[] = [
  { role: "system", content: "be nice" },
  { role: "user", content: "price of tea?" },
  { role: "assistant", content: "<think>x</think>", tool_calls: [{ id: "a", type: "function", function: { name: "get_item", arguments: '{"item":"tea"}' } }] },
  { role: "tool", name: "get_item", content: '{"price":4}' },
  { role: "assistant", content: "It is $4." },
  { role: "user", content: "buy it" },
];
const input = {
  call: { name: "checkout", argumentsJson: "{}" },
  tools,
  history,
  rawCallerMessage: '<think>pay</think>\n<tool_call>\n{"name":"checkout","arguments":{}}\n</tool_call>',
  fewShot: fewShotFromReference(history),
};

describe("rehearse prompts", () => {
  it("full prompt: system + user with every section in order, then /think", () => {
    const [sys, user] = buildRehearsePrompt(input);
    expect(sys).toEqual({ role: "system", content: REHEARSE_SYSTEM_PROMPT });
    const order = ["Allowed tools for this task:", "Example calls from this task", "Conversation so far:", "The agent's latest message:", "Call to execute now:"].map((h) =>
      user.content.indexOf(h),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(user.content.endsWith("\n\n/think")).toBe(true);
    // Data as the reference writes it: json.dumps(value, ensure_ascii=True, indent=0) (strings printed by CPython).
    expect(user.content).toContain(
      '- input schema (JSON Schema):\n{\n"type": "function",\n"function": {\n"name": "checkout",\n"parameters": {\n"type": "object",\n"properties": {}\n}\n}\n}\n- arguments (parsed from the agent\'s tool_call):\n{}',
    );
    expect(user.content).toContain('- tool: get_item\n  arguments: {\n"item": "tea"\n}\n  result: {"price":4}');
  });

  it("each section can be switched off; unknown tools say the schema is unavailable", () => {
    const [, user] = buildRehearsePrompt(
      { ...input, call: { name: "fly", argumentsJson: "not json" } },
      { injectCandidateTools: false, injectFewShot: false, injectHistory: false, injectRawCallerMessage: false, appendThinkSwitch: false },
    );
    expect(user.content).toBe("Call to execute now:\n- tool name: fly\n- input schema (JSON Schema):\n<schema unavailable>\n- arguments (parsed from the agent's tool_call):\n{}");
    const [, empty] = buildRehearsePrompt({ ...input, fewShot: [], history: [] });
    expect(empty.content).toContain("with their real results: <unavailable>");
    expect(empty.content).toContain("Conversation so far:\n(no earlier messages)");
  });

  it("history serialisation skips system, renders calls inline as the reference and names tool messages", () => {
    // Reference (simulate_core serialize_conversation_history): the stored arguments string verbatim.
    expect(serializeHistory(history)).toBe(
      'User: price of tea?\n\nAssistant: <think>x</think>\n<tool_call>\n{"name": "get_item", "arguments": {"item":"tea"}}\n</tool_call>\n\nTool[get_item]: {"price":4}\n\nAssistant: It is $4.\n\nUser: buy it',
    );
    // Contents are trimmed, empty entries dropped, a nameless tool is "Tool".
    expect(serializeHistory([{ role: "user", content: "  " }, { role: "assistant", content: " hi " }, { role: "tool", content: " {} " }])).toBe("Assistant: hi\n\nTool: {}");
  });

  it("compact prompt is short and lists earlier calls with results", () => {
    const msgs = buildCompactRehearsePrompt(input);
    expect(msgs[1].content).toBe('tools: get_item,checkout\npast:\nget_item {"item":"tea"} -> {"price":4}\ncall: checkout {}');
    const noHist = buildCompactRehearsePrompt(input, { injectHistory: false, injectCandidateTools: false, injectFewShot: true });
    expect(noHist[1].content).toBe('eg get_item {"item":"tea"} -> {"price":4}\ncall: checkout {}');
  });
});

describe("external simulator prompt", () => {
  it("includes only the called tool's examples and parses execution_result", () => {
    const [, user] = buildSimulatorPrompt({ call: { name: "get_item", argumentsJson: '{"item":"mug"}' }, tools, fewShot: input.fewShot });
    expect(user.content).toContain("Tool name: get_item\nTool description: Price");
    expect(user.content).toContain('Arguments (JSON):\n{\n"item": "mug"\n}');
    expect(SIMULATOR_RESPONSE_SCHEMA.schema.required).toEqual(["analysis", "execution_result"]);
    // Reference httpx path: json.dumps(execution_result, ensure_ascii=True).
    expect(parseSimulatorResponse('{"analysis":"a","execution_result":{"p":1,"q":7.0,"t":"\u00e9"}}')).toEqual({ ok: true, content: '{"p": 1, "q": 7.0, "t": "\\u00e9"}' });
    expect(parseSimulatorResponse('{"analysis":"a","execution_result":[]}')).toEqual({ ok: true, content: "[]" });
    expect(parseSimulatorResponse('{"analysis":"a","execution_result":{}}').ok).toBe(false);
    expect(parseSimulatorResponse("nope").ok).toBe(false);
  });
});
