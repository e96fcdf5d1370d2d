/**
 * The shared harness: the evaluator (ENV_ASSERTION and ACTION on a telecom trajectory with the user's own
 * calls; DB with both hashes), the user simulator's tool loop and its view of the conversation, the world's
 * sync after a failed call, and to_json_str's serialisation rules.
 */
import { describe, expect, it } from "vitest";
import { PyDict, PyTuple } from "../../../../lib/python/values";
import { domainGoldFile, domainSource, domainTestData } from "../../../../test/fixtures/tau2-domains";
import type { ChatClient, ChatMessage, ChatRequest } from "../../../engine/io";
import { GREETING } from "../../../../lib/tau2/prompts";
import { evaluateEpisode, type ScoredToolCall } from "./evaluator";
import { PyDate, PyDateTime, toJsonStr } from "./py";
import { replaySynced, taskEnvironment } from "./replay";
import { userContext, userTurn } from "./user";
import { Tau2World } from "./world";

const telecom = () => domainSource("telecom");
const taskOf = (id: string) => domainTestData("telecom").tasks.find((t) => t.id === id)!;
const goldCalls = (task: ReturnType<typeof taskOf>, recorded: string[] = []): ScoredToolCall[] =>
  (task.evaluation_criteria?.actions ?? []).map((a, i) => ({
    name: a.name,
    arguments: a.arguments,
    requestor: a.requestor ?? "assistant",
    ...(recorded[i] !== undefined ? { recordedContent: recorded[i] } : {}),
  }));

describe("the evaluator (v0.2.0, evaluation type ALL)", () => {
  const id = "[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]";

  it("a telecom trajectory of the gold calls, agent's and user's, scores 1 on ENV_ASSERTION; without the user's fix it scores 0", () => {
    const source = telecom();
    const task = taskOf(id);
    const synced = replaySynced(source, task);
    const full = evaluateEpisode(source, task, { toolCalls: goldCalls(task, synced.results.map((r) => r.content)), assistantTexts: [GREETING], premature: false });
    expect(full).toMatchObject({ reward: 1, evaluated: true, basis: ["ENV_ASSERTION"], envAssertions: { reward: 1 } });
    expect(full.envAssertions!.checks.map((c) => [c.envType, c.funcName, c.met])).toEqual([
      ["user", "assert_mobile_data_status", true],
      ["user", "assert_internet_speed", true],
      ["assistant", "assert_data_refueling_amount", true],
    ]);
    // The DB check is computed (both hashes) but not rewarded: the basis is ENV_ASSERTION.
    expect(full.db).toMatchObject({ predictedUserHash: expect.any(String), goldUserHash: expect.any(String) });
    const withoutToggle = evaluateEpisode(source, task, { toolCalls: goldCalls(task).filter((c) => c.requestor === "assistant"), assistantTexts: [GREETING], premature: false });
    expect(withoutToggle.reward).toBe(0);
    expect(withoutToggle.envAssertions!.checks.map((c) => c.met)).toEqual([false, false, true]);
    expect(evaluateEpisode(source, task, { toolCalls: goldCalls(task), assistantTexts: [], premature: true })).toMatchObject({ reward: 0, evaluated: false });
  });

  it("a recorded result that the replay does not reproduce aborts the evaluation", () => {
    const source = telecom();
    const task = taskOf(id);
    const calls = goldCalls(task, ["Mobile Data is now OFF."]);
    expect(evaluateEpisode(source, task, { toolCalls: calls, assistantTexts: [GREETING], premature: false })).toMatchObject({ reward: 0, evaluated: false, note: expect.stringMatching(/replay of tool call #0 \(toggle_data\) differs/) });
  });

  it("ACTION: the basis multiplies it in; compare_args [] matches any call of the name; arguments compare as Python values", () => {
    const source = telecom();
    const task = domainTestData("telecom").tasks.find((t) => t.evaluation_criteria?.reward_basis?.includes("ACTION"))!;
    const synced = replaySynced(source, task);
    const calls = goldCalls(task, synced.results.map((r) => r.content));
    const scored = evaluateEpisode(source, task, { toolCalls: calls, assistantTexts: [GREETING], premature: false });
    expect(scored).toMatchObject({ reward: 1, basis: ["ENV_ASSERTION", "ACTION"], action: { reward: 1 } });
    const transfer = task.evaluation_criteria!.actions!.find((a) => a.name === "transfer_to_human_agents");
    if (transfer) {
      expect(transfer.compare_args).toEqual([]);
      const other = calls.map((c) => (c.name === "transfer_to_human_agents" ? { ...c, arguments: { summary: "something else entirely" }, recordedContent: undefined } : c));
      expect(evaluateEpisode(source, task, { toolCalls: other, assistantTexts: [GREETING], premature: false }).action!.reward).toBe(1);
    }
    const missing = calls.filter((c) => c.name !== task.evaluation_criteria!.actions!.at(-1)!.name);
    expect(evaluateEpisode(source, task, { toolCalls: missing, assistantTexts: [GREETING], premature: false }).action!.reward).toBe(0);
  });

  it("airline: DB × COMMUNICATE by default (no reward_basis)", () => {
    const source = domainSource("airline");
    const task = domainTestData("airline").tasks.find((t) => (t.evaluation_criteria?.communicate_info ?? []).length > 0 && (t.evaluation_criteria?.actions ?? []).length > 0)!;
    const calls = goldCalls(task as never);
    const info = task.evaluation_criteria!.communicate_info!;
    expect(evaluateEpisode(source, task, { toolCalls: calls, assistantTexts: [GREETING, `It comes to ${info.join(", ")}.`], premature: false })).toMatchObject({ reward: 1, basis: ["DB", "COMMUNICATE"], db: { match: true } });
    expect(evaluateEpisode(source, task, { toolCalls: calls, assistantTexts: [GREETING], premature: false })).toMatchObject({ reward: 0, db: { match: true }, communicate: { reward: 0 } });
  });
});

/** A user-simulator double that answers the scripted replies in order and records what it was sent. */
function scriptedChat(replies: { text?: string; toolCalls?: { id: string; name: string; arguments: string }[] }[]): ChatClient & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async complete(req) {
      requests.push(req);
      const r = replies.shift() ?? { text: "###STOP###" };
      return { text: r.text ?? "", ...(r.toolCalls ? { toolCalls: r.toolCalls } : {}) };
    },
  };
}

describe("the user simulator with tools (telecom)", () => {
  it("runs its tool calls on the phone, sees their results, and only then speaks; the agent never sees them", async () => {
    const source = telecom();
    const task = taskOf("[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]");
    const world = new Tau2World(taskEnvironment(source, task));
    const chat = scriptedChat([{ text: "Let me look.", toolCalls: [{ id: "t1", name: "check_status_bar", arguments: "{}" }] }, { text: "My data is disabled." }]);
    const visible: ChatMessage[] = [];
    const turn = await userTurn(chat, { systemPrompt: "SYS", tools: source.userTools, visible, world, temperature: 0 });
    expect(turn.text).toBe("My data is disabled.");
    expect(turn.actions).toEqual([{ call: { id: "t1", name: "check_status_bar", argumentsJson: "{}" }, content: expect.stringMatching(/^Status Bar: .*Data Disabled/u), error: false }]);
    expect(chat.requests[0]!.tools).toHaveLength(30);
    expect(chat.requests[1]!.messages.slice(1)).toEqual([
      { role: "user", content: GREETING },
      { role: "assistant", content: "Let me look.", tool_calls: [{ id: "t1", type: "function", function: { name: "check_status_bar", arguments: "{}" } }] },
      { role: "tool", content: turn.actions[0]!.content, tool_call_id: "t1" },
    ]);
    // Next turn: the agent answered; the user's earlier exchange stays before its first message.
    visible.push({ role: "user", content: turn.text }, { role: "assistant", content: "Please turn mobile data on." });
    const next = scriptedChat([{ text: "", toolCalls: [{ id: "t2", name: "toggle_data", arguments: "{}" }] }, { text: "Done ###STOP###" }]);
    const second = await userTurn(next, { systemPrompt: "SYS", tools: source.userTools, visible, world, temperature: 0 });
    expect(second.stop).toBe("###STOP###");
    expect(next.requests[1]!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool"]);
    expect(world.env.runEnvAssertion({ env_type: "user", func_name: "assert_mobile_data_status", arguments: PyDict.fromObject({ expected_status: true }), assert_value: true })).toBe(false);
    expect(userContext("SYS", visible, world.userExchanges).at(-1)).toMatchObject({ role: "tool", tool_call_id: "t2", content: expect.stringMatching(/^Mobile Data is now ON\./) });
  });

  it("a user without tools is offered none and its tool calls are ignored; a runaway tool loop is an error", async () => {
    const chat = scriptedChat([{ text: "hello", toolCalls: [{ id: "x", name: "anything", arguments: "{}" }] }]);
    const turn = await userTurn(chat, { systemPrompt: "SYS", tools: null, visible: [], temperature: 0 });
    expect(turn).toEqual({ text: "hello", stop: undefined, actions: [] });
    expect("tools" in chat.requests[0]!).toBe(false);
    const source = telecom();
    const world = new Tau2World(source.newEnv());
    const loop: ChatClient = { complete: async () => ({ text: "", toolCalls: [{ id: "l", name: "check_status_bar", arguments: "{}" }] }) };
    await expect(userTurn(loop, { systemPrompt: "SYS", tools: source.userTools, visible: [], world, temperature: 0 })).rejects.toThrow(/more than 30 rounds of tool calls/);
  });
});

describe("the world", () => {
  it("answers the agent with the tool's error flag, and arguments that are not JSON with an error", () => {
    const world = new Tau2World(telecom().newEnv());
    expect(world.execute("get_customer_by_id", '{"customer_id": "C1001"}')).toMatchObject({ isError: false });
    expect(world.execute("get_customer_by_id", "{nope")).toEqual({ content: "Error: the arguments of get_customer_by_id are not valid JSON", isError: true });
    expect(world.execute("get_customer_by_id", "[1]")).toMatchObject({ isError: true, content: "Error: tau2.environment.environment.Environment.make_tool_call() argument after ** must be a mapping, not list" });
    expect(world.snapshot()).toEqual({ db_hash: domainGoldFile("telecom").initial_db_hash, user_db_hash: domainGoldFile("telecom").initial_user_db_hash });
  });
});

describe("to_json_str", () => {
  it("a str as it is; a plain dict's numbers, bools and dates as text; a model's values as they are; other scalars quoted", () => {
    expect(toJsonStr("plain text")).toBe("plain text");
    expect(toJsonStr(new Map<string, never>([["a", 1n as never], ["b", 2.5 as never], ["c", true as never], ["d", null as never], ["e", new PyDate(2025, 2, 28) as never]]))).toBe('{"a": "1", "b": "2.5", "c": "True", "d": null, "e": "2025-02-28"}');
    expect(toJsonStr({ n: 1n, x: 2.0, t: new PyDateTime(2025, 1, 20, 14, 30), d: new PyDate(2025, 1, 1) })).toBe('{"n": 1, "x": 2.0, "t": "2025-01-20 14:30:00", "d": "2025-01-01"}');
    expect(toJsonStr(5n)).toBe('"5"');
    expect(toJsonStr(null)).toBe("null");
    expect(toJsonStr([new PyTuple([1n, "a"]), { m: 1.5 }])).toBe('[["1", "a"], {"m": 1.5}]');
    expect(toJsonStr("caf\u00e9 \u{1F4F6}")).toBe("caf\u00e9 \u{1F4F6}");
    expect(toJsonStr(new Map([["s", "caf\u00e9"]]))).toBe('{"s": "caf\\u00e9"}');
  });
});
