/** TinkerPolicy.generate left-truncates a prompt to `maxPromptTokens` (the reference's simulator budget): what is sampled and trained is the tail. */
import { afterEach, describe, expect, it } from "vitest";
import { tinkerSamplerDouble } from "../../test/doubles/tinker-sampler";
import { type HfChatRenderer, loadRenderer, policyRenderOptions } from "../../lib/renderers";
import type { ChatMessage } from "../engine/io";
import { TinkerPolicy } from "./tinker-policy";

const qwen = loadRenderer("qwen3") as HfChatRenderer;
const policies: TinkerPolicy[] = [];
afterEach(() => policies.splice(0).forEach((p) => p.close()));

describe("TinkerPolicy and the rehearse prompt budget", () => {
  it("samples and returns only the last maxPromptTokens ids of a longer prompt; a prompt within it goes whole", async () => {
    const double = tinkerSamplerDouble({ model: "Qwen/Qwen3-8B", reply: () => ({ tokens: [...qwen.encode("<execution_result>\n{}\n</execution_result>"), 151_645] }) });
    const policy = await TinkerPolicy.create({ baseUrl: "http://tinker.test", model: "Qwen/Qwen3-8B", renderer: qwen, client: { fetch: double.fetch, heartbeatMs: 60_000 } });
    policies.push(policy);
    const messages: ChatMessage[] = [
      { role: "system", content: "You simulate tools." },
      { role: "user", content: `History:\n${"User: hello\n\n".repeat(400)}Current tool to simulate: get_order` },
    ];
    const full = policy.promptTokens(messages);
    expect(full.length).toBeGreaterThan(1000);
    const sampling = { temperature: 1, topP: 1, maxTokens: 50 };
    const res = await policy.generate({ role: "rehearse", messages, sampling, maxPromptTokens: 1000 });
    expect(double.samples[0].prompt).toEqual(full.slice(-1000));
    expect(res.promptTokens).toEqual(full.slice(-1000));
    // The tail is kept: the call to simulate and the generation prompt stay, the system prompt went.
    const tail = qwen.decode(res.promptTokens);
    expect(tail).toMatch(/Current tool to simulate: get_order\nassistant\n$/); // decode() drops the special tokens
    expect(tail).not.toContain("You simulate tools.");

    const whole = await policy.generate({ role: "rehearse", messages, sampling, maxPromptTokens: full.length });
    expect(whole.promptTokens).toEqual(full);
  });

  it("thinking: false renders the prompt with Qwen3's thinking off (an empty think block closes the prompt); absent keeps the policy's", async () => {
    const double = tinkerSamplerDouble({ model: "Qwen/Qwen3-8B", reply: () => ({ tokens: [...qwen.encode("Memo."), 151_645] }) });
    const policy = await TinkerPolicy.create({ baseUrl: "http://tinker.test", model: "Qwen/Qwen3-8B", renderer: qwen, client: { fetch: double.fetch, heartbeatMs: 60_000 } });
    policies.push(policy);
    const messages: ChatMessage[] = [{ role: "system", content: "Write a memory." }, { role: "user", content: "Runs: …" }];
    const sampling = { temperature: 0.01, topP: 1, maxTokens: 50 };
    const off = await policy.generate({ role: "act", messages, sampling, thinking: false });
    expect(off.promptTokens).toEqual(qwen.renderPrompt(messages, { ...policyRenderOptions(undefined, undefined), enableThinking: false }));
    expect(qwen.decode(off.promptTokens)).toMatch(/<think>\n\n<\/think>\n\n$/);
    const on = await policy.generate({ role: "act", messages, sampling });
    expect(on.promptTokens).toEqual(policy.promptTokens(messages));
    expect(on.promptTokens).not.toEqual(off.promptTokens);
  });
});
