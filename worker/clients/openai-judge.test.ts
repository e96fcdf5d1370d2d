/**
 * A training step whose checklist judge is a slow reasoning model on a vLLM-like node: the verdict streams
 * for longer than the run's judgeTimeoutS, but within the time its token budget allows on that node, and
 * the node rate-limits the first calls. The judge must still answer every item.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../contracts/run-config";
import { startVllmDouble, type VllmDouble } from "../../test/doubles/vllm-openai";
import { importCm2 } from "../../lib/cm2";
import { fakeGeneration } from "../../test/doubles/shop-oracle";
import type { GenerateRequest, PolicyClient, TrainerClient } from "../engine/io";
import { runTrainingStep } from "../engine/step";
import { createOpenAIChatClient } from "../../lib/clients/openai-chat";

const JUDGE = "Qwen/Qwen3-30B-A3B";

/** Two CM2 rows (shape: envace-method.md §6): one forecast call, a reply, a follow-up; LLM-judged items only. */
function cm2Rows(): string {
  const item = (id: string, question: string, weight: number) => ({
    id,
    focus_on: "assistant.tool_calls",
    question,
    pass_condition: "The assistant calls get_forecast for the city the user named.",
    failure_examples: ["calls get_forecast for another city"],
    evidence: [],
    weight,
    required_for_next_turn: false,
  });
  const tool = { type: "function", function: { name: "get_forecast", description: "Daily forecast", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } };
  return [1, 2]
    .map((i) =>
      JSON.stringify({
        data_source: "cm2",
        messages: [
          { role: "system", content: "You are a travel assistant." },
          { role: "user", content: "Will it rain in Paris tomorrow?" },
        ],
        extra_info: {
          index: i,
          original_index: i,
          tools: JSON.stringify([tool]),
          messages: [
            { role: "system", content: "You are a travel assistant." },
            { role: "user", content: "Will it rain in Paris tomorrow?" },
            { role: "assistant", content: "", tool_calls: [{ id: "", type: "function", function: { name: "get_forecast", arguments: '{"city": "Paris"}' } }] },
            { role: "observation", content: '{"rain_prob":0.7}' },
            { role: "assistant", content: "Likely yes." },
          ],
          interaction_kwargs: { checklist_list: [[[item("C0", "Did the assistant call get_forecast?", 0.5), item("C1", "Was the city right?", 0.5)]]] },
        },
      }),
    )
    .join("\n");
}

/** The policy being trained (scripted here): one forecast call, then an answer; rehearsals predict the tool. */
const policy: PolicyClient = {
  async generate(req: GenerateRequest) {
    if (req.role === "rehearse") return fakeGeneration("p", '\n<execution_result>\n{"rain_prob":0.7}\n</execution_result>');
    const last = req.messages.at(-1)!;
    return fakeGeneration("p", last.role === "tool" ? "Likely yes." : '<think>need it</think>\n<tool_call>\n{"name":"get_forecast","arguments":{"city":"Paris"}}\n</tool_call>');
  },
};

const trainer: TrainerClient = {
  forwardBackward: async () => ({ metrics: {} }),
  optimStep: async () => ({ metrics: {} }),
  updateSampler: async () => {},
  saveWeightsForSampler: async (name) => ({ path: `tinker://s/${name}` }),
  saveState: async (name) => ({ path: name }),
  loadState: async () => {},
};

let judgeNode: VllmDouble | undefined;
afterEach(async () => {
  await judgeNode?.close();
});

describe("a training run's judge on an OpenAI-compatible node", () => {
  it("waits for a slow streamed reasoning verdict within its token budget, through 429s", async () => {
    const verdict = {
      high_level_understanding_of_the_question: "forecast call",
      analysis_of_if_focus_on: "the tool calls",
      analysis_of_pass_condition: "get_forecast with Paris",
      analysis_of_failure_examples: "none apply",
      answer: true,
    };
    // About 1.5 s per verdict: 30 chunks 50 ms apart — longer than the run's judgeTimeoutS of 1 s.
    judgeNode = await startVllmDouble({
      model: JUDGE,
      respond: () => `<think>\n${"The assistant called get_forecast for Paris. ".repeat(4)}\n</think>\n\n${JSON.stringify(verdict)}`,
      streamChunkChars: 15,
      streamChunkDelayMs: 50,
      rateLimit: { count: 2, retryAfterS: 0 },
    });
    const judge = createOpenAIChatClient({
      baseUrl: `${judgeNode.url}/v1`,
      model: JUDGE,
      nodeName: "judge",
      // 200 tokens at ≥ 50 tokens/s: each verdict may take 1 s + 4 s; silence is cut after 1 s.
      settings: { stream: true, requestTimeoutS: 1, minDecodeTokensPerS: 50, maxConcurrency: 4 },
    });
    const parsed = parseRunConfig({
      kind: "train",
      data: { dataset: "dataset:cm2", instancesPerStep: 2, rolloutsPerInstance: 2 },
      rollout: { paradigm: "rehearse", maxAssistantTurns: 3, maxMicroSteps: 6 },
      reward: { judge: { node: "judge", model: JUDGE }, judgeTimeoutS: 1, judgeRetries: 1, judgeMaxTokens: 200 },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const imported = importCm2(cm2Rows());
    if (!imported.ok) throw new Error(JSON.stringify(imported.errors));

    const result = await runTrainingStep({ instances: imported.instances, config: parsed.config, policy, trainer, judge, stepIndex: 1, runId: "judge" });

    expect(judgeNode.stats.rateLimited).toBe(2);
    expect(judgeNode.stats.maxInFlight).toBeLessThanOrEqual(4);
    const judged = judgeNode.requests;
    expect(judged.length).toBeGreaterThanOrEqual(8); // 4 rollouts × 2 items
    expect(judged.every((r) => r.stream === true && r.max_tokens === 200 && (r.response_format as { type: string }).type === "json_schema")).toBe(true);
    expect(result.metrics["judge/pass_rate"]).toBe(1);
    for (const t of result.trajectories) {
      expect(t.reward).toBe(1);
      expect(t.verdicts.every((v) => v.passed)).toBe(true);
    }
  });
});
