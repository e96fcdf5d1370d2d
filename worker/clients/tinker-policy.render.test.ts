/**
 * TinkerPolicy.generate is token in / token out with the node model's renderer: the prompt is rendered
 * and tokenised once, the renderer's stop tokens are sent, max_tokens is clamped to the context, the
 * sampled ids come back verbatim (they are what is trained) and ids outside the vocabulary are refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import { tinkerSamplerDouble, type SampleRequest } from "../../test/doubles/tinker-sampler";
import { type HfChatRenderer, loadRenderer, TokenOutOfVocabularyError } from "../../lib/renderers";
import type { ChatMessage, GenerateRequest, ToolSchema } from "../engine/io";
import { buildDatums, TinkerPolicy } from "./tinker-policy";

const qwen = loadRenderer("qwen3") as HfChatRenderer;
const tools: ToolSchema[] = [{ type: "function", function: { name: "get_order", parameters: { type: "object", properties: { order_id: { type: "string" } } } } }];
const messages: ChatMessage[] = [
  { role: "system", content: "You are an agent." },
  { role: "user", content: "Where is #W1?" },
  { role: "assistant", content: "<think>\nLook it up.\n</think>\n", tool_calls: [{ id: "c1", type: "function", function: { name: "get_order", arguments: '{"order_id":"#W1"}' } }] },
  { role: "tool", name: "get_order", content: '{"status":"pending"}' },
];
const request = (maxTokens = 100): GenerateRequest => ({ role: "act", messages, tools, sampling: { temperature: 1, topP: 1, maxTokens } });

const policies: TinkerPolicy[] = [];
afterEach(() => policies.splice(0).forEach((p) => p.close()));

async function policyWith(reply: (req: SampleRequest) => { tokens: number[]; logprobs?: number[] }, opts: { maxContextLength?: number; contextLength?: number; enableThinking?: boolean } = {}) {
  const double = tinkerSamplerDouble({ model: "Qwen/Qwen3-8B", maxContextLength: opts.maxContextLength, reply });
  const policy = await TinkerPolicy.create({
    baseUrl: "http://tinker.test",
    model: "Qwen/Qwen3-8B",
    renderer: qwen,
    enableThinking: opts.enableThinking,
    contextLength: opts.contextLength,
    client: { fetch: double.fetch, heartbeatMs: 60_000 },
  });
  policies.push(policy);
  return { policy, samples: double.samples };
}

describe("TinkerPolicy.generate with the Qwen3 renderer", () => {
  const answer = '<think>\nIt is pending.\n</think>\n\nYour order is pending.';

  it("sends the rendered prompt ids and Qwen3's stop tokens, and keeps the sampled ids verbatim", async () => {
    const sampled = [...qwen.encode(answer), 151_645];
    const logprobs = sampled.map((_, i) => -0.1 * (i + 1));
    const { policy, samples } = await policyWith(() => ({ tokens: sampled, logprobs }));
    const res = await policy.generate(request());

    // Rendered once, the reference's incremental way: the earlier assistant turn keeps its reasoning.
    const expectedPrompt = qwen.renderPrompt(messages, { tools, history: "incremental", parseToolArguments: true });
    expect(samples).toHaveLength(1);
    expect(samples[0].prompt).toEqual(expectedPrompt);
    expect(qwen.decode(samples[0].prompt)).toContain('<think>\nLook it up.\n</think>\n\n<tool_call>\n{"name": "get_order", "arguments": {"order_id": "#W1"}}\n</tool_call>');
    expect(samples[0].params.stop).toEqual([151_645, 151_643]);
    expect(res.promptTokens).toEqual(expectedPrompt);
    expect(res.tokens).toEqual(sampled);
    expect(res.logprobs).toEqual(logprobs);
    expect(res.text).toBe(answer);

    // The datum trains exactly prompt ids + sampled ids with the sampler's logprobs.
    const { datums } = buildDatums([{ promptTokens: res.promptTokens, responseTokens: res.tokens, logprobs: res.logprobs, advantages: res.tokens.map(() => 1), role: "act" }], { lossAgg: "token-mean", weights: "none" });
    const seq = [...expectedPrompt, ...sampled];
    // (Datums are int32 / float32 typed arrays, the wire's own types.)
    expect(Array.from(datums[0].model_input.chunks[0].tokens)).toEqual(seq.slice(0, -1));
    expect(Array.from(datums[0].loss_fn_inputs.target_tokens.data)).toEqual(seq.slice(1));
    expect(Array.from(datums[0].loss_fn_inputs.logprobs.data.slice(-sampled.length))).toEqual(logprobs.map(Math.fround));
  });

  it("a rollout's act prompts go through its render cache: each renders only what it adds, the ids those of a fresh render", async () => {
    const { policy, samples } = await policyWith(() => ({ tokens: [151_645] }));
    const fresh = (m: ChatMessage[]) => qwen.renderPrompt(m, { tools, history: "incremental", parseToolArguments: true });
    // The machine's way: a rollout's own message objects, appended to (machine/start.ts, act.ts, tools.ts).
    let conversation: ChatMessage[] = messages.map((m) => ({ ...m }));
    await policy.generate({ ...request(), messages: conversation });
    const encode = (qwen as unknown as { encode: (t: string) => number[] }).encode;
    let encodes = 0;
    (qwen as unknown as { encode: (t: string) => number[] }).encode = (t) => (encodes++, encode.call(qwen, t));
    try {
      for (let k = 2; k <= 4; k++) {
        const call = { id: `c${k}`, type: "function" as const, function: { name: "get_order", arguments: `{"order_id":"#W${k}"}` } };
        conversation = [...conversation, { role: "assistant", content: `<think>\nNow #W${k}.\n</think>\n`, tool_calls: [call] }, { role: "tool", name: "get_order", content: `{"status":"shipped ${k}"}` }];
        encodes = 0;
        await policy.generate({ ...request(), messages: conversation });
        // Generation prompt, the assistant message, its tool result, the generation prompt: never the earlier turns.
        expect(encodes).toBeLessThanOrEqual(4);
      }
    } finally {
      (qwen as unknown as { encode: (t: string) => number[] }).encode = encode;
    }
    expect(samples.map((s) => s.prompt)).toEqual([2, 4, 6, 8].map((n) => fresh(conversation.slice(0, 2 + n))));
    // A rehearse prompt (fresh [system, user] messages, left-truncated) is rendered from scratch and cut on the left.
    const rehearse: ChatMessage[] = [{ role: "system", content: "Be the tool." }, { role: "user", content: "call get_order " + "x ".repeat(200) }];
    const full = fresh(rehearse);
    await policy.generate({ role: "rehearse", messages: rehearse, sampling: { temperature: 1, topP: 1, maxTokens: 10 }, maxPromptTokens: 50 });
    expect(samples.at(-1)!.prompt).toEqual(full.slice(full.length - 50));
  });

  it("honours enableThinking=false (the prompt ends in an empty think block)", async () => {
    const { policy, samples } = await policyWith(() => ({ tokens: [151_645] }), { enableThinking: false });
    await policy.generate(request());
    expect(qwen.decode(samples[0].prompt).endsWith("<think>\n\n</think>\n\n")).toBe(true);
  });

  it("clamps max_tokens to the context: the node setting wins over the advertised length", async () => {
    const promptLength = qwen.renderPrompt(messages, { tools, history: "incremental", parseToolArguments: true }).length;
    const advertised = await policyWith(() => ({ tokens: [151_645] }), { maxContextLength: promptLength + 10 });
    await advertised.policy.generate(request(100));
    expect(advertised.samples[0].params.max_tokens).toBe(10);

    const configured = await policyWith(() => ({ tokens: [151_645] }), { maxContextLength: promptLength + 10, contextLength: promptLength + 4 });
    await configured.policy.generate(request(100));
    expect(configured.samples[0].params.max_tokens).toBe(4);

    // Unadvertised (SkyRL): the renderer's context (Qwen3: 40,960) still clamps.
    const unknown = await policyWith(() => ({ tokens: [151_645] }));
    expect(unknown.policy.contextLength).toBe(40_960);
    await unknown.policy.generate(request(1_000_000));
    expect(unknown.samples[0].params.max_tokens).toBe(40_960 - promptLength);

    const full = await policyWith(() => ({ tokens: [151_645] }), { contextLength: promptLength });
    expect(await full.policy.generate(request())).toMatchObject({ tokens: [], finishReason: "length" });
    expect(full.samples).toHaveLength(0);
  });

  it("refuses sampled ids outside the Qwen3 vocabulary with a typed error", async () => {
    const { policy } = await policyWith(() => ({ tokens: [9707, 151_669, 250_000] }));
    const e = await policy.generate(request()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TokenOutOfVocabularyError);
    expect((e as TokenOutOfVocabularyError).badIds).toEqual([151_669, 250_000]);
    expect((e as Error).message).toMatch(/outside the Qwen3 vocabulary/);
  });
});
