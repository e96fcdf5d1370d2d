import { describe, expect, it } from "vitest";
import type { ChatClient, ChatMessage } from "./io";
import { ChecklistJudge, judgeThinkingSplit, judgeTurn, serializeForJudge } from "./reward";
import type { ChecklistItem, TaskInstance } from "./types";

/**
 * Golden judge transcripts, written by hand from the reference (Within-yao/EnvACE
 * agent_system/environments/env_package/checklist/checklist_reward.py `get_messages_str_v2` and
 * interaction.py `generate_response_for_single_checklist`):
 * - every message ends with "\n" and messages are concatenated;
 * - system: "Role: system\ncontent: …"; user: "# Turn: t\nRole: user\ncontent: …"; tool: "Role: tool\ncontent: …";
 * - assistant: "## Step: k\nRole: assistant\ncontent.thinking: …\ncontent.user_visible_reply: …\ntool_call: …";
 * - turns count from 0 within the serialised slice, steps restart at each user (and system) message;
 * - "Previous Messages" = messages before the current turn's user message; the current turn is serialised
 *   from its user message, so it is always "# Turn: 0", up to the judged step and the tool messages after it;
 * - tool_call = json.dumps(message["tool_calls"]) (ensure_ascii: é → \u00e9 inside the escaped arguments string).
 */
const messages: ChatMessage[] = [
  { role: "system", content: "You are a shop assistant." },
  { role: "user", content: "Price of tea?" },
  {
    role: "assistant",
    content: "<think>\nlook up tea\n</think>\n\nLet me check.",
    tool_calls: [{ id: "call_r1_0_0", type: "function", function: { name: "get_item", arguments: '{"item": "thé", "qty": 7.0}' } }],
  },
  { role: "tool", name: "get_item", content: '{"item": "thé", "price": 4.0}' },
  { role: "assistant", content: "<think>done</think>Tea is $4." },
  { role: "user", content: "Buy two." },
  {
    role: "assistant",
    content: "<think>add</think>",
    tool_calls: [{ id: "call_r1_2_0", type: "function", function: { name: "add_to_cart", arguments: '{"item": "tea", "qty": 2}' } }],
  },
  { role: "tool", name: "add_to_cart", content: '{"cart": {"tea": 2}}' },
  // An act parse error: no tool_calls on the message, the raw block stays in the content.
  { role: "assistant", content: "<think>and pay</think>\n<tool_call>\n{broken\n</tool_call>" },
  { role: "tool", name: "error_tool_call", content: '{"error_tool_call": "bad"}' },
];

const PREVIOUS =
  "Role: system\ncontent: You are a shop assistant.\n" +
  "# Turn: 0\nRole: user\ncontent: Price of tea?\n" +
  "## Step: 0\nRole: assistant\ncontent.thinking: \nlook up tea\n\ncontent.user_visible_reply: Let me check.\n" +
  'tool_call: [{"id": "call_r1_0_0", "type": "function", "function": {"name": "get_item", "arguments": "{\\"item\\": \\"th\\u00e9\\", \\"qty\\": 7.0}"}}]\n' +
  'Role: tool\ncontent: {"item": "thé", "price": 4.0}\n' +
  "## Step: 1\nRole: assistant\ncontent.thinking: done\ncontent.user_visible_reply: Tea is $4.\ntool_call: None\n";

const CURRENT_STEP_0 =
  "# Turn: 0\nRole: user\ncontent: Buy two.\n" +
  "## Step: 0\nRole: assistant\ncontent.thinking: add\ncontent.user_visible_reply: None\n" +
  'tool_call: [{"id": "call_r1_2_0", "type": "function", "function": {"name": "add_to_cart", "arguments": "{\\"item\\": \\"tea\\", \\"qty\\": 2}"}}]\n' +
  'Role: tool\ncontent: {"cart": {"tea": 2}}\n';

const CURRENT_STEP_1 =
  CURRENT_STEP_0 +
  "## Step: 1\nRole: assistant\ncontent.thinking: and pay\ncontent.user_visible_reply: None\n" +
  "tool_call: <|tool_call_start|>\n{broken\n<|tool_call_end|>\n" +
  'Role: tool\ncontent: {"error_tool_call": "bad"}\n';

describe("judge transcript as the reference builds it", () => {
  it("previous messages: turns from 0, steps restarting at each user message, full tool_calls JSON", () => {
    expect(serializeForJudge(messages.slice(0, 5))).toBe(PREVIOUS);
  });

  it("current turn: labelled Turn 0, through the judged step and its tool messages", () => {
    expect(serializeForJudge(messages.slice(5, 8))).toBe(CURRENT_STEP_0);
    expect(serializeForJudge(messages.slice(5, 10))).toBe(CURRENT_STEP_1);
  });

  it("thinking split quirks: untrimmed thinking, None replies, no think block = all thinking", () => {
    expect(judgeThinkingSplit("<think> a </think>  hi ")).toEqual({ thinking: " a ", reply: "hi" });
    expect(judgeThinkingSplit("<think>x</think>")).toEqual({ thinking: "x", reply: "None" });
    expect(serializeForJudge([{ role: "assistant", content: "plain <tool_call>x</tool_call>" }])).toBe(
      "## Step: 0\nRole: assistant\ncontent.thinking: plain <tool_call>x</tool_call>\ncontent.user_visible_reply: None\ntool_call: None\n",
    );
  });

  it("judgeTurn sends exactly these transcripts for each step of the current turn", async () => {
    const prompts: string[] = [];
    const client: ChatClient = {
      complete: async (req) => {
        prompts.push(req.messages[0]!.content);
        return { text: JSON.stringify({ high_level_understanding_of_the_question: "", analysis_of_if_focus_on: "", analysis_of_pass_condition: "", analysis_of_failure_examples: "", answer: true }) };
      },
    };
    const item: ChecklistItem = {
      id: "c",
      question: "Did it reply?",
      focus_on: "assistant.content.user_visible_reply",
      pass_condition: "yes",
      failure_examples: [],
      evidence: [],
      weight: 1,
      required_for_next_turn: false,
    };
    const instance: TaskInstance = { id: "i", dataSource: "t", messages: messages.slice(0, 2), tools: [], followUpUserMessages: [], checklists: [[[], [item]]] };
    const judge = new ChecklistJudge(client, { concurrency: 1, timeoutMs: 1000, retries: 1, temperature: 0, topP: 1, maxTokens: 10 });
    await judgeTurn({ instance, messages, turnStartIndex: 5, userTurnIndex: 1, lastToolFailed: false, maxChecklists: 1 }, judge);
    expect(prompts).toHaveLength(2);
    // The reference's layout: "# Previous Messages\n" + previous + "# Current Messages to Evaluate\n" + current + "\n".
    expect(prompts[0]).toContain("# Previous Messages\n" + PREVIOUS + "# Current Messages to Evaluate\n" + CURRENT_STEP_0 + "\n# Special rule of tool call\n");
    expect(prompts[1]).toContain("# Previous Messages\n" + PREVIOUS + "# Current Messages to Evaluate\n" + CURRENT_STEP_1 + "\n# Special rule of tool call\n");
  });
});
