import { describe, expect, it } from "vitest";
import { withToolCallIds } from "../clients/chat-policy";
import { toOpenAIMessages } from "../../lib/clients/openai-chat";
import type { ChatMessage } from "../engine/io";
import { renderPrompt } from "../../lib/renderers/tiny-gpt/chat-format";
import { chatCompletion, parseToolCallBlocks, splitReasoning, toChatMessages } from "./openai-api";
import { UserError } from "./protocol";
import type { NodeService } from "./service";
import { END_TOKEN, encodeText } from "../../lib/renderers/tiny-gpt/tokenizer";

/** A NodeService stand-in whose "model" writes a fixed text, recording what it was asked to sample. */
function scriptedService(text: string, stopReason: "stop" | "length" = "stop") {
  const calls: { prompt: number[]; topK: number }[] = [];
  const service = {
    stats: { startedAt: 0 },
    listSamplerNames: () => ["tiny-gpt"],
    resolveSampler: async ({ name }: { name: string }) => {
      if (name !== "tiny-gpt") throw new UserError(`unknown model '${name}'`, 404, "model_not_found");
      return {};
    },
    sample: async (_sampler: unknown, req: { prompt: number[]; topK: number; numSamples: number }) => {
      calls.push({ prompt: req.prompt, topK: req.topK });
      const tokens = [...encodeText(text), ...(stopReason === "stop" ? [END_TOKEN] : [])];
      return Array.from({ length: req.numSamples }, () => ({ tokens, logprobs: tokens.map(() => -0.5), stopReason }));
    },
  };
  return { service: service as unknown as NodeService, calls };
}

const tools = [{ type: "function", function: { name: "get_item", description: "look up an item", parameters: { type: "object", properties: { item: { type: "string" } } } } }];
const user = [{ role: "user", content: "How much is the lamp?" }];

async function message(text: string, body: Record<string, unknown>) {
  const { service, calls } = scriptedService(text);
  const reply = await chatCompletion(service, { model: "tiny-gpt", messages: user, ...body });
  const choice = (reply.body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0];
  return { ...choice, calls };
}

describe("the embedded node's chat completions (vLLM-like)", () => {
  it("parses its own <tool_call> blocks into tool_calls when tools are given", async () => {
    const text = 'Let me check.\n<tool_call>\n{"name":"get_item","arguments":{"item":"lamp"}}\n</tool_call>\n<tool_call>\n{"name": "get_item", "arguments": {}}\n</tool_call>';
    const r = await message(text, { tools });
    expect(r.finish_reason).toBe("tool_calls");
    expect(r.message.content).toBe("Let me check.\n");
    const calls = r.message.tool_calls as { id: string; type: string; function: { name: string; arguments: string } }[];
    expect(calls.map((c) => c.function)).toEqual([
      { name: "get_item", arguments: '{"item":"lamp"}' },
      { name: "get_item", arguments: "{}" },
    ]);
    expect(calls.every((c) => c.type === "function" && /^call_[0-9a-f]{24}$/.test(c.id))).toBe(true);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);

    // Content before the first block is null when empty; without tools (or tool_choice "none") the text stays content.
    expect((await message('<tool_call>\n{"name":"get_item","arguments":{"item":"x"}}\n</tool_call>', { tools })).message.content).toBeNull();
    const plain = await message(text, {});
    expect(plain).toMatchObject({ finish_reason: "stop", message: { content: text } });
    expect(plain.message.tool_calls).toBeUndefined();
    expect((await message(text, { tools, tool_choice: "none" })).message.content).toBe(text);
  });

  it("keeps a malformed block as content, as vLLM's Hermes parser does", () => {
    expect(parseToolCallBlocks("no calls")).toBeNull();
    expect(parseToolCallBlocks('<tool_call>\n{"name":"a"}\n</tool_call>')).toBeNull(); // no arguments
    expect(parseToolCallBlocks("<tool_call>\n{not json}\n</tool_call>")).toBeNull();
    expect(parseToolCallBlocks('<tool_call>\n[{"name":"a","arguments":{}}]\n</tool_call>')).toBeNull();
    expect(parseToolCallBlocks('x<tool_call>\n{"name":"a","arguments":{"k":[1,2]}}')).toEqual({ content: "x", calls: [{ name: "a", arguments: '{"k":[1,2]}' }] });
  });

  it("splits think blocks into reasoning_content when thinking is asked for, and drops them with include_reasoning false", async () => {
    const text = "<think>\nthe lamp is item 3\n</think>\n\nIt costs $12.";
    const thinking = await message(text, { chat_template_kwargs: { enable_thinking: true } });
    expect(thinking.message).toMatchObject({ reasoning_content: "\nthe lamp is item 3\n", content: "\n\nIt costs $12." });
    expect((await message(text, {})).message).toEqual({ role: "assistant", content: text });
    const dropped = await message(text, { chat_template_kwargs: { enable_thinking: true }, include_reasoning: false });
    expect(dropped.message).toEqual({ role: "assistant", content: "\n\nIt costs $12." });
    // Reasoning and tool calls together: the calls are parsed from the content after </think>.
    const both = await message('<think>lookup</think>\n<tool_call>\n{"name":"get_item","arguments":{"item":"lamp"}}\n</tool_call>', {
      tools,
      chat_template_kwargs: { enable_thinking: true },
    });
    expect(both.message).toMatchObject({ reasoning_content: "lookup", content: "\n" });
    expect(both.finish_reason).toBe("tool_calls");
    expect(splitReasoning("no tags")).toBeNull();
  });

  it("passes top_k to the sampler", async () => {
    expect((await message("hi", { top_k: 20 })).calls[0].topK).toBe(20);
    expect((await message("hi", {})).calls[0].topK).toBe(-1);
  });

  it("refuses what vLLM refuses, naming the field", async () => {
    const { service } = scriptedService("hi");
    const refused = async (body: Record<string, unknown>) => {
      try {
        await chatCompletion(service, { model: "tiny-gpt", messages: user, ...body });
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error("accepted");
    };
    expect(await refused({ tools: [] })).toMatch(/tools.*must not be an empty array/);
    expect(await refused({ tool_choice: "auto" })).toMatch(/`tools` must be set/);
    expect(await refused({ tools, tool_choice: "required" })).toMatch(/not supported/);
    expect(await refused({ messages: [...user, { role: "tool", content: "{}" }] })).toMatch(/messages\.1\.tool_call_id/);
    expect(
      await refused({ messages: [...user, { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "get_item", arguments: "{oops" } }] }] }),
    ).toMatch(/arguments.*JSON/);
    expect(await refused({ tools: [{ type: "function", function: {} }] })).toMatch(/tools\.0\.function\.name/);
  });
});

describe("a conversation sent over /v1 renders like the same conversation sampled over the Tinker API", () => {
  it("names tool messages after the call they answer and keeps assistant tool calls", () => {
    const engine: ChatMessage[] = [
      { role: "system", content: "You are a shop assistant." },
      { role: "user", content: "Price of the lamp and the desk?" },
      {
        role: "assistant",
        content: "<think>two lookups</think>",
        tool_calls: [
          { id: "call_r1_0_0", type: "function", function: { name: "get_item", arguments: '{"item":"lamp"}' } },
          { id: "call_r1_0_1", type: "function", function: { name: "get_price", arguments: '{"item":"desk"}' } },
        ],
      },
      { role: "tool", name: "get_item", content: '{"price":12}' },
      { role: "tool", name: "get_price", content: '{"price":80}' },
    ];
    const wire = JSON.parse(JSON.stringify(toOpenAIMessages(withToolCallIds(engine))));
    expect(wire.slice(3)).toEqual([
      { role: "tool", content: '{"price":12}', tool_call_id: "call_r1_0_0" },
      { role: "tool", content: '{"price":80}', tool_call_id: "call_r1_0_1" },
    ]);
    const rendered = toChatMessages(wire);
    expect(rendered.slice(3).map((m) => m.name)).toEqual(["get_item", "get_price"]);
    expect(renderPrompt(rendered)).toEqual(renderPrompt(engine));
  });

  it("puts an assistant's separate reasoning back inside its think tags", () => {
    const [m] = toChatMessages([{ role: "assistant", content: "\n\nHello", reasoning_content: "\nthink\n" }]);
    expect(m.content).toBe("<think>\nthink\n</think>\n\nHello");
  });
});
