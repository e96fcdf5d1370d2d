import { describe, expect, it } from "vitest";
import type { ChatClient, ChatMessage } from "./io";
import {
  buildJudgePrompt,
  ChecklistJudge,
  type JudgeConfig,
  judgeTurn,
  normalizedEpisodeReward,
  rowScore,
  groundedRehearseReward,
  Semaphore,
  serializeForJudge,
} from "./reward";
import type { ChecklistItem, TaskInstance } from "./types";
import { Termination } from "./machine";
import { shopEnvironment } from "../envs/shop/world";

const verdict = (answer: unknown) =>
  JSON.stringify({
    high_level_understanding_of_the_question: "q",
    analysis_of_if_focus_on: "f",
    analysis_of_pass_condition: "p",
    analysis_of_failure_examples: "e",
    answer,
  });

const cfg = (over: Partial<JudgeConfig> = {}): JudgeConfig => ({
  concurrency: 2,
  timeoutMs: 200,
  retries: 3,
  temperature: 0.6,
  topP: 0.8,
  maxTokens: 100,
  sleep: async () => {},
  ...over,
});

const llmItem = (id: string, weight: number, required = false, focus: ChecklistItem["focus_on"] = "assistant.content.user_visible_reply"): ChecklistItem => ({
  id,
  question: `Q ${id}`,
  focus_on: focus,
  pass_condition: `P ${id}`,
  failure_examples: ["bad"],
  evidence: [{ snippet: `S ${id}` }],
  weight,
  required_for_next_turn: required,
});

const conversation: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "first" },
  { role: "assistant", content: "<think>a</think>", tool_calls: [{ id: "1", type: "function", function: { name: "get_item", arguments: '{"item":"tea"}' } }] },
  { role: "tool", name: "get_item", content: '{"item":"tea","price":4,"stock":9}' },
  { role: "assistant", content: "<think>b</think>Tea is $4." },
];

function instance(checklists: ChecklistItem[][][]): TaskInstance {
  return { id: "i", dataSource: "t", messages: conversation.slice(0, 2), tools: [], followUpUserMessages: ["next"], checklists, environment: shopEnvironment };
}

describe("ChecklistJudge", () => {
  it("sends the verdict schema and parses the boolean answer and analysis", async () => {
    const seen: any[] = [];
    const client: ChatClient = { complete: async (req) => { seen.push(req); return { text: verdict(true) }; } };
    const j = new ChecklistJudge(client, cfg());
    const o = await j.check("prompt");
    expect(o).toMatchObject({ answer: true, callSuccess: true, apiFailed: false, attempts: 1 });
    expect(o.analysis?.analysis_of_pass_condition).toBe("p");
    expect(seen[0].jsonSchema.name).toBe("evaluation_verdict");
    expect(seen[0].jsonSchema.schema.required).toContain("answer");
    expect(seen[0]).toMatchObject({ temperature: 0.6, topP: 0.8, maxTokens: 100 });
  });

  it("retries transport errors and non-JSON with backoff, then records the failure", async () => {
    const sleeps: number[] = [];
    let n = 0;
    const client: ChatClient = { complete: async () => { n++; if (n === 1) throw new Error("503"); return { text: "not json" }; } };
    const j = new ChecklistJudge(client, cfg({ sleep: async (ms) => { sleeps.push(ms); } }));
    const o = await j.check("p");
    expect(n).toBe(3);
    expect(sleeps).toEqual([2000, 4000]);
    expect(o).toMatchObject({ answer: false, callSuccess: false, apiFailed: true, attempts: 3 });
    expect(j.failedCalls).toBe(1);
  });

  it("a non-boolean answer fails without retry; a timeout counts as a failed attempt", async () => {
    const j = new ChecklistJudge({ complete: async () => ({ text: verdict("yes") }) }, cfg());
    expect(await j.check("p")).toMatchObject({ answer: false, callSuccess: false, apiFailed: false, attempts: 1 });
    let n = 0;
    const slow: ChatClient = { complete: (req) => new Promise((resolve) => { n++; if (n < 2) req.signal?.addEventListener("abort", () => {}); else resolve({ text: verdict(true) }); }) };
    const j2 = new ChecklistJudge(slow, cfg({ timeoutMs: 20 }));
    expect(await j2.check("p")).toMatchObject({ answer: true, attempts: 2 });
  });

  it("never runs more calls at once than the concurrency limit", async () => {
    let active = 0;
    let peak = 0;
    const client: ChatClient = {
      complete: async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 2));
        active--;
        return { text: verdict(true) };
      },
    };
    const j = new ChecklistJudge(client, cfg({ concurrency: 3 }));
    await Promise.all(Array.from({ length: 12 }, () => j.check("p")));
    expect(peak).toBe(3);
    const s = new Semaphore(1);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((i) => s.run(async () => { order.push(i); })));
    expect(order).toEqual([1, 2, 3]);
  });
});

describe("judgeTurn aggregation", () => {
  it("ORs items over steps, weights them and judges every (item, step) pair", async () => {
    const prompts: string[] = [];
    // Item A passes only at step 1 (the reply), item B never.
    const client: ChatClient = {
      complete: async (req) => {
        const p = req.messages[0].content;
        prompts.push(p);
        const isA = p.includes("**Question:** Q A");
        const atStep1 = p.includes("## Step: 1");
        return { text: verdict(isA && atStep1) };
      },
    };
    const inst = instance([[[llmItem("A", 0.7), llmItem("B", 0.3)], [llmItem("C", 1)]]]);
    const j = await judgeTurn({ instance: inst, messages: conversation, turnStartIndex: 1, userTurnIndex: 0, lastToolFailed: false, maxChecklists: 1 }, new ChecklistJudge(client, cfg()));
    expect(prompts).toHaveLength(4);
    expect(j.reward).toBeCloseTo(0.7, 9);
    expect(j.stop).toBe(false);
    expect(j.verdicts.filter((v) => v.passed).map((v) => [v.itemId, v.step])).toEqual([["A", 1]]);
    // The reference's section headers, verbatim and in order (checklist_reward.get_input_prompt_v2).
    const headers = ["# Role\n", "# Objective\n", "# Criteria\n**Question:** Q A\n", "# Previous Messages\n", "# Current Messages to Evaluate\n", "# Special rule of tool call\n", "# Evaluation Process (Align each step to a JSON output field)\n", "# Output Format\n"];
    const at = headers.map((h) => prompts[0].indexOf(h));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(prompts[0]).toContain('**Reference snippet:** [\n  "S A"\n]');
  });

  it("required items stop by majority over checklists; judge failures stop with judge_failed", async () => {
    const no: ChatClient = { complete: async () => ({ text: verdict(false) }) };
    const req = [[llmItem("R", 1, true)], [llmItem("X", 1)]];
    const opt = [[llmItem("O", 1, false)], [llmItem("Y", 1)]];
    const ctx = (checklists: ChecklistItem[][][], maxChecklists: number) => ({ instance: instance(checklists), messages: conversation, turnStartIndex: 1, userTurnIndex: 0, lastToolFailed: false, maxChecklists });
    // 1 of 2 checklists votes stop: not a majority.
    const split = await judgeTurn(ctx([req, opt], 2), new ChecklistJudge(no, cfg()));
    expect(split.stop).toBe(false);
    const both = await judgeTurn(ctx([req, req], 2), new ChecklistJudge(no, cfg()));
    expect(both).toMatchObject({ stop: true, reason: Termination.judgeRequiredFailed });
    const broken = await judgeTurn(ctx([opt], 1), new ChecklistJudge({ complete: async () => ({ text: "??" }) }, cfg({ retries: 1 })));
    expect(broken).toMatchObject({ stop: true, reason: Termination.judgeFailed, judgeFailures: 2, reward: 0 });
  });

  it("auto-fails tool-focused items after a tool error, checks programmatic items, and zeroes failed-tool turns", async () => {
    const withError: ChatMessage[] = [
      ...conversation.slice(0, 3),
      { role: "tool", name: "get_item", content: '{"error_tool_call":{"code":"X","message":"m"}}' },
    ];
    const items: ChecklistItem[] = [
      { ...llmItem("T", 0.5, false, "assistant.tool_calls"), check: { type: "tool_called", name: "get_item", args: { item: "tea" } } },
      { ...llmItem("S", 0.5, false, "assistant.content.thinking"), check: { type: "tool_called", name: "get_item" } },
    ];
    const j = await judgeTurn({ instance: instance([[items]]), messages: withError, turnStartIndex: 1, userTurnIndex: 0, lastToolFailed: false, maxChecklists: 1 }, new ChecklistJudge(undefined, cfg()));
    expect(j.verdicts.map((v) => [v.itemId, v.source, v.passed])).toEqual([["T", "tool_error", false], ["S", "programmatic", true]]);
    expect(j.reward).toBeCloseTo(0.5, 9);
    expect(j.judgeCalls).toBe(0);
    const zeroed = await judgeTurn({ instance: instance([[items]]), messages: withError, turnStartIndex: 1, userTurnIndex: 0, lastToolFailed: true, maxChecklists: 1 }, new ChecklistJudge(undefined, cfg()));
    expect(zeroed.reward).toBe(0);
  });

  it("state_equals replays the calls in a fresh world; reply_contains reads the visible reply", async () => {
    const items: ChecklistItem[] = [
      { ...llmItem("st", 0.5), check: { type: "state_equals", path: ["cart"], value: {} } },
      { ...llmItem("rp", 0.5), check: { type: "reply_contains", all: ["TEA", "$4"] } },
    ];
    const j = await judgeTurn({ instance: instance([[items], [[]]] as any), messages: conversation, turnStartIndex: 1, userTurnIndex: 0, lastToolFailed: false, maxChecklists: 1 }, new ChecklistJudge(undefined, cfg()));
    expect(j.reward).toBeCloseTo(1, 9);
  });
});

describe("serialisation and normalisation", () => {
  it("serialises steps with thinking, visible reply and tool calls; no think block means all thinking", () => {
    const s = serializeForJudge(conversation);
    expect(s).toContain("# Turn: 0\nRole: user\ncontent: first\n");
    expect(s).toContain("## Step: 1\nRole: assistant\ncontent.thinking: b\ncontent.user_visible_reply: Tea is $4.\ntool_call: None\n");
    expect(serializeForJudge([{ role: "assistant", content: "plain" }])).toContain("content.thinking: plain\ncontent.user_visible_reply: None");
    // Item data as json.dumps(..., ensure_ascii=True, indent=2).
    expect(buildJudgePrompt("", "cur", llmItem("Z", 1))).toContain('**Failure examples:** [\n  "bad"\n]\n**Reference snippet:** [\n  "S Z"\n]');
    // No previous messages: nothing between the two headers, as the reference concatenates them.
    expect(buildJudgePrompt("", "cur", llmItem("Z", 1))).toContain("# Previous Messages\n# Current Messages to Evaluate\ncur\n# Special rule of tool call\n");
  });

  it("R = E / numChecklists / numTurns and the invalid-action penalty", () => {
    expect(normalizedEpisodeReward(1.5, 1, 2)).toBeCloseTo(0.75, 12);
    expect(normalizedEpisodeReward(1, 2, 2)).toBeCloseTo(0.25, 12);
    expect(normalizedEpisodeReward(1, 0, 2)).toBe(0);
    expect(rowScore(0.75, false, 0.1)).toBeCloseTo(0.65, 12);
    expect(rowScore(0.75, true, 0.1)).toBe(0.75);
    // Grounded rehearsal: a convex mix of trajectory reward and the row's fidelity; R alone when off or unmeasured.
    expect(groundedRehearseReward(0.2, 0.8, 0.5)).toBeCloseTo(0.5, 12);
    expect(groundedRehearseReward(0.2, 0.8, 1)).toBeCloseTo(0.8, 12);
    expect(groundedRehearseReward(0.2, 0.8, 0)).toBe(0.2);
    expect(groundedRehearseReward(0.2, undefined, 0.5)).toBe(0.2);
    expect(groundedRehearseReward(0.2, NaN, 0.5)).toBe(0.2);
  });
});
