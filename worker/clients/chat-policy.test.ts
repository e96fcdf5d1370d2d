import { afterEach, describe, expect, it } from "vitest";
import { parseRunConfig, quickstartPreset } from "../../contracts/run-config";
import { startVllmDouble, type VllmDouble, type VllmDoubleOptions } from "../../test/doubles/vllm-openai";
import { createShopOraclePolicy } from "../../test/doubles/shop-oracle";
import { generateShopInstances } from "../envs/shop/tasks";
import type { ChatMessage, ChatReply, PolicyClient, ToolSchema } from "../engine/io";
import { parseActOutput, stripThink } from "../engine/parsers";
import { runEvaluation, type TrajectoryResult } from "../engine/step";
import { toChatMessages } from "../node/openai-api";
import { chatPolicy, policyTextOf, withToolCallIds } from "./chat-policy";
import { createOpenAIChatClient } from "../../lib/clients/openai-chat";

const MODEL = "Qwen/Qwen3-8B";
const tools: ToolSchema[] = [
  { type: "function", function: { name: "get_item", parameters: { type: "object", properties: { item: { type: "string" } } } } },
  { type: "function", function: { name: "checkout", parameters: { type: "object", properties: {} } } },
];
const sampling = { temperature: 0.6, topP: 0.95, maxTokens: 256 };

const doubles: VllmDouble[] = [];
async function vllm(opts: Partial<VllmDoubleOptions> & Pick<VllmDoubleOptions, "respond">) {
  const d = await startVllmDouble({ model: MODEL, ...opts });
  doubles.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(doubles.splice(0).map((d) => d.close()));
});

describe("engine conversation → OpenAI messages", () => {
  it("ties each tool message to the call it answers, in order, keeping explicit ids", () => {
    const conversation: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "buy 2 lamps" },
      {
        role: "assistant",
        content: "<think>two steps</think>",
        tool_calls: [
          { id: "call_r_0_0", type: "function", function: { name: "get_item", arguments: '{"item":"lamp"}' } },
          { id: "call_r_0_1", type: "function", function: { name: "checkout", arguments: "{}" } },
        ],
      },
      { role: "tool", name: "get_item", content: '{"price":3}' },
      { role: "tool", name: "checkout", content: '{"order":"O1"}' },
      { role: "assistant", content: "", tool_calls: [{ id: "call_r_1_0", type: "function", function: { name: "get_item", arguments: "{}" } }] },
      { role: "tool", name: "get_item", tool_call_id: "call_r_1_0", content: "{}" },
      { role: "assistant", content: "broken <tool_call> block" },
      { role: "tool", name: "error_tool_call", content: '{"error_tool_call":"…"}' },
    ];
    const out = withToolCallIds(conversation);
    expect(out.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_r_0_0", "call_r_0_1", "call_r_1_0", undefined]);
    expect(out.slice(0, 3)).toEqual(conversation.slice(0, 3));
    expect(conversation[3].tool_call_id).toBeUndefined(); // not mutated
  });
});

describe("chat reply → act text", () => {
  const call = (name: string, args: string, id = "c") => ({ id, name, arguments: args });
  const cases: [string, ChatReply, string][] = [
    ["content only", { text: "Hello.", finishReason: "stop" }, "Hello."],
    ["reasoning and content (vLLM keeps the newlines around both)", { text: "\n\nHello.", reasoning: "\nwhy\n", finishReason: "stop" }, "<think>\nwhy\n</think>\n\nHello."],
    ["reasoning and content as the client gives them", { text: "Hello.", reasoning: "\nwhy\n", finishReason: "stop" }, "<think>\nwhy\n</think>\n\nHello."],
    ["reasoning without newlines", { text: "Hello.", reasoning: "why" }, "<think>\nwhy\n</think>\n\nHello."],
    ["empty reasoning", { text: "Hi", reasoning: "\n\n" }, "<think>\n\n</think>\n\nHi"],
    [
      "reasoning then a call, no content",
      { text: "", reasoning: "\nlook up\n", toolCalls: [call("get_item", '{"item": "lamp"}')], finishReason: "tool_calls" },
      '<think>\nlook up\n</think>\n\n<tool_call>\n{"name": "get_item", "arguments": {"item": "lamp"}}\n</tool_call>',
    ],
    [
      "content ending in a newline, then two calls",
      { text: "Let me check.\n", toolCalls: [call("get_item", '{"item": "lamp"}'), call("checkout", "{}")] },
      'Let me check.\n<tool_call>\n{"name": "get_item", "arguments": {"item": "lamp"}}\n</tool_call>\n<tool_call>\n{"name": "checkout", "arguments": {}}\n</tool_call>',
    ],
    ["a call and nothing else gets the block's leading newline", { text: "", toolCalls: [call("checkout", "")] }, '\n<tool_call>\n{"name": "checkout", "arguments": {}}\n</tool_call>'],
    ["cut off while reasoning", { text: "", reasoning: "\nstill thinking ab", finishReason: "length" }, "<think>\nstill thinking ab"],
  ];
  it.each(cases)("%s", (_name, reply, expected) => {
    expect(policyTextOf(reply)).toBe(expected);
  });

  it("reads back as the calls the node parsed, and non-JSON arguments as the parser's JSON error", () => {
    const parsed = parseActOutput(policyTextOf({ text: "", reasoning: "x", toolCalls: [call("get_item", '{"item": "lamp"}'), call("checkout", "{}")] }));
    expect(parsed.kind === "tool_calls" && parsed.calls.map((c) => [c.name, c.argumentsJson])).toEqual([
      ["get_item", '{"item": "lamp"}'],
      ["checkout", "{}"],
    ]);
    expect(parseActOutput(policyTextOf({ text: "", toolCalls: [call("get_item", "{item: lamp")] }))).toMatchObject({ kind: "error", code: "JSON_DECODE_ERROR" });
  });
});

describe("the chat policy against a vLLM-like node (hermes tool parser, qwen3 reasoning parser)", () => {
  // Texts as Qwen3 writes them; the node splits them into reasoning / content / tool_calls and the adapter must put them back.
  const written = [
    "<think>\nThe lamp costs 3.\n</think>\n\nThe lamp costs $3.",
    '<think>\nNeed the price.\n</think>\n\n<tool_call>\n{"name": "get_item", "arguments": {"item": "lamp"}}\n</tool_call>',
    '<think>\nTwo steps.\n</think>\n\nLet me do that.\n<tool_call>\n{"name": "get_item", "arguments": {"item": "lamp", "qty": 2}}\n</tool_call>\n<tool_call>\n{"name": "checkout", "arguments": {}}\n</tool_call>',
    "<think>\n\n</think>\n\nAnything else?",
  ];

  for (const stream of [false, true]) {
    it(`gives back exactly what the model wrote${stream ? " (streamed)" : ""}`, async () => {
      let next = 0;
      const d = await vllm({ respond: () => written[next++]!, streamChunkChars: 5 });
      const policy = chatPolicy(createOpenAIChatClient({ baseUrl: `${d.url}/v1`, model: MODEL, nodeName: `qwen-${stream}`, settings: { stream } }));
      for (const text of written) {
        const out = await policy.generate({ role: "act", messages: [{ role: "user", content: "lamp?" }], tools, sampling });
        expect(out).toEqual({ text, promptTokens: [], tokens: [], logprobs: [], finishReason: "stop" });
        expect(parseActOutput(out.text)).toEqual(parseActOutput(text));
      }
      expect(d.requests.every((r) => r.tools?.length === 2)).toBe(true);
    });
  }

  it("keeps a reply cut off mid-thought as an unclosed think block with finish 'length'", async () => {
    const d = await vllm({ respond: () => ({ text: "<think>\nLet me think about the lam", finishReason: "length" }) });
    const policy = chatPolicy(createOpenAIChatClient({ baseUrl: `${d.url}/v1`, model: MODEL, nodeName: "cut" }));
    expect(await policy.generate({ role: "act", messages: [{ role: "user", content: "x" }], tools, sampling })).toMatchObject({
      text: "<think>\nLet me think about the lam",
      finishReason: "length",
    });
  });

  it("with thinking off (a vendor extra), Qwen3's bare leading <tool_call> still reads as a call", async () => {
    const d = await vllm({ respond: () => '<tool_call>\n{"name": "checkout", "arguments": {}}\n</tool_call>' });
    const policy = chatPolicy(
      createOpenAIChatClient({ baseUrl: `${d.url}/v1`, model: MODEL, nodeName: "no-think", settings: { extraBody: { chat_template_kwargs: { enable_thinking: false } } } }),
    );
    const out = await policy.generate({ role: "act", messages: [{ role: "user", content: "x" }], tools, sampling });
    expect(parseActOutput(out.text)).toMatchObject({ kind: "tool_calls", calls: [{ name: "checkout", argumentsJson: "{}" }] });
    expect(d.requests[0].chat_template_kwargs).toEqual({ enable_thinking: false });
  });
});

/** Assistant and tool messages with think text and JSON spacing normalised: what the trajectory means. */
function meaning(t: TrajectoryResult) {
  return {
    reward: t.reward,
    terminationReason: t.terminationReason,
    toolCalls: t.toolCalls,
    messages: t.messages.map((m) => ({
      role: m.role,
      content: stripThink(m.content).trim(),
      reasoning: /<think>([\s\S]*?)<\/think>/.exec(m.content)?.[1]?.trim(),
      calls: m.tool_calls?.map((c) => ({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) })),
    })),
    turns: t.turns.map((u) => ({
      role: u.role,
      calls: u.calls?.map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.argumentsJson) })),
      call: u.call?.name,
      error: u.error?.code,
      rehearsed: u.rehearsed,
      real: u.real,
      finishReason: u.finishReason,
    })),
  };
}

describe("an OpenAI-served policy and a Tinker-served one read replies alike", () => {
  it("a model that answers the same thing gives the same shop trajectories through the adapter and a vLLM-like node as with its own text", async () => {
    const parsed = parseRunConfig({ ...quickstartPreset, kind: "eval", trialsPerTask: 1 });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const config = parsed.config;
    const instances = generateShopInstances(11, 6);

    // "Tinker-served": the engine gets the text the model wrote. "OpenAI-served": the same model behind vLLM's parsers.
    const oracle = createShopOraclePolicy();
    const direct = await runEvaluation({ instances, config, policy: oracle, stepIndex: 1, runId: "same" });

    const model = createShopOraclePolicy();
    const d = await vllm({
      respond: async (req) => {
        const messages = toChatMessages(req.messages as Parameters<typeof toChatMessages>[0]);
        const role = req.tools?.length ? "act" : "rehearse";
        return (await model.generate({ role, messages, tools: req.tools as ToolSchema[] | undefined, sampling })).text;
      },
    });
    const served: PolicyClient = chatPolicy(
      createOpenAIChatClient({ baseUrl: `${d.url}/v1`, model: MODEL, nodeName: "served-oracle", settings: { extraBody: { chat_template_kwargs: { enable_thinking: false } } } }),
    );
    const viaNode = await runEvaluation({ instances, config, policy: served, stepIndex: 1, runId: "same" });

    expect(d.rejected).toEqual([]);
    expect(viaNode.trajectories.map(meaning)).toEqual(direct.trajectories.map(meaning));
    expect(direct.trajectories.some((t) => t.toolCalls > 1 && t.reward > 0)).toBe(true);
    // What vLLM saw: tools on act calls only, every tool message tied to an earlier assistant call id.
    const withTools = d.requests.filter((r) => r.tools);
    expect(withTools.length).toBeGreaterThan(0);
    for (const r of d.requests) {
      const ids = new Set(r.messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []));
      for (const m of r.messages.filter((x) => x.role === "tool")) expect(ids.has(m.tool_call_id!)).toBe(true);
    }
    expect(d.requests.some((r) => r.messages.some((m) => m.role === "tool"))).toBe(true);
  });
});
