import { describe, expect, it } from "vitest";
import type { ChatMessage, ToolSchema } from "./io";
import {
  buildCompactRehearsePrompt,
  buildRehearsePrompt,
  buildSimulatorPrompt,
  fewShotFromReference,
  parseSimulatorResponse,
  REHEARSE_SYSTEM_PROMPT,
  serializeFewShot,
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
    // The reference's section headers, verbatim (simulate_core/_builders.py build_validation_user_prompt).
    const order = [
      "Candidate tools (whitelist for this sample):\n",
      "Previous tool calls and results (few-shot):\n",
      "Current conversation history:\n",
      "RL model's latest response:\n",
      "Current tool to simulate:\n- name: checkout\n",
    ].map((h) =>
      user.content.indexOf(h),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(user.content.endsWith("\n\n/think")).toBe(true);
    // Data as the reference writes it: json.dumps(value, ensure_ascii=True, indent=0) (strings printed by CPython).
    expect(user.content).toContain(
      '- input schema (JSON Schema):\n{\n"type": "function",\n"function": {\n"name": "checkout",\n"parameters": {\n"type": "object",\n"properties": {}\n}\n}\n}\n- arguments (JSON, parsed from caller\'s tool_call):\n{}',
    );
    expect(user.content).toContain('Previous tool calls and results (few-shot):\nTool name:\nget_item\nTool arguments:\n{\n"item": "tea"\n}\nTool execution result:\n{"price":4}\n\n\nCurrent conversation history:');
  });

  it("each section can be switched off; unknown tools say the schema is unavailable", () => {
    const [, user] = buildRehearsePrompt(
      { ...input, call: { name: "fly", argumentsJson: "not json" } },
      { injectCandidateTools: false, injectFewShot: false, injectHistory: false, injectRawCallerMessage: false, appendThinkSwitch: false },
    );
    expect(user.content).toBe("Current tool to simulate:\n- name: fly\n- input schema (JSON Schema):\n<schema unavailable>\n- arguments (JSON, parsed from caller's tool_call):\n{}");
    const [, empty] = buildRehearsePrompt({ ...input, fewShot: [], history: [], tools: [], rawCallerMessage: "" });
    expect(empty.content).toBe(
      "Previous tool calls and results (few-shot): <unavailable>\n\nCurrent conversation history:\nNo conversation history\n\nCurrent tool to simulate:\n- name: checkout\n- input schema (JSON Schema):\n<schema unavailable>\n- arguments (JSON, parsed from caller's tool_call):\n{}\n\n/think",
    );
  });

  it("few-shot entries are grouped by tool name in first-seen order, as the reference's map", () => {
    const fewShot = [
      { name: "a", argumentsJson: '{"x": 1}', result: "r1" },
      { name: "b", argumentsJson: "{}", result: "r2" },
      { name: "a", argumentsJson: '{"x": 2}', result: "r3" },
    ];
    expect(serializeFewShot(fewShot)).toBe(
      "Previous tool calls and results (few-shot):\n" +
        'Tool name:\na\nTool arguments:\n{\n"x": 1\n}\nTool execution result:\nr1\n\n' +
        'Tool name:\na\nTool arguments:\n{\n"x": 2\n}\nTool execution result:\nr3\n\n' +
        "Tool name:\nb\nTool arguments:\n{}\nTool execution result:\nr2\n",
    );
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
  it("is the reference's user prompt (labels verbatim) and parses execution_result", () => {
    const [, user] = buildSimulatorPrompt({ call: { name: "get_item", argumentsJson: '{"item":"mug"}' }, tools, fewShot: input.fewShot });
    expect(user.content).toBe(
      'Previous tool calls and results (few-shot):\nTool name:\nget_item\nTool arguments:\n{\n"item": "tea"\n}\nTool execution result:\n{"price":4}\n\n\n' +
        "Current tool name: get_item\n" +
        'Current tool input schema (JSON Schema):\n{\n"type": "function",\n"function": {\n"name": "get_item",\n"description": "Price",\n"parameters": {\n"type": "object",\n"properties": {\n"item": {\n"type": "string"\n}\n},\n"required": [\n"item"\n]\n}\n}\n}\n' +
        'Current arguments (JSON):\n{\n"item": "mug"\n}\n' +
        "Generate tool execution result in JSON format.",
    );
    // A tool that is not a candidate: its schema is `{}`, as the reference's httpx path writes it.
    expect(buildSimulatorPrompt({ call: { name: "fly", argumentsJson: "{}" }, tools })[1].content).toContain("Current tool input schema (JSON Schema):\n{}\n");
    expect(SIMULATOR_RESPONSE_SCHEMA.schema.required).toEqual(["analysis", "execution_result"]);
    // Reference httpx path: json.dumps(execution_result, ensure_ascii=True).
    expect(parseSimulatorResponse('{"analysis":"a","execution_result":{"p":1,"q":7.0,"t":"\u00e9"}}')).toEqual({ ok: true, content: '{"p": 1, "q": 7.0, "t": "\\u00e9"}' });
    expect(parseSimulatorResponse('{"analysis":"a","execution_result":[]}')).toEqual({ ok: true, content: "[]" });
    expect(parseSimulatorResponse('{"analysis":"a","execution_result":{}}').ok).toBe(false);
    expect(parseSimulatorResponse("nope").ok).toBe(false);
  });
});
