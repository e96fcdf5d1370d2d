/** The rollout's live-user step (TaskInstance.liveUser) and episode-level scoring (TaskInstance.scoreEpisode). */
import { describe, expect, it } from "vitest";
import { fakeGeneration } from "../../test/doubles/shop-oracle";
import type { ChatClient, ChatMessage, GenerateRequest, PolicyClient } from "./io";
import { expandJobs, type JudgeTurnHook, type RolloutDriverConfig, type RolloutOptions, runOneRollout, Termination } from "./rollout";
import type { LiveUser, TaskInstance } from "./types";

const sampling = { temperature: 1, topP: 1, maxTokens: 100 };
const options: RolloutOptions = { paradigm: "environment", shadowExecution: false, maxAssistantTurns: 30, maxUserTurns: 30, maxMicroSteps: 200, promptBudgetTokens: 100_000 };
const config = (o: Partial<RolloutOptions> = {}, extra: Partial<RolloutDriverConfig> = {}): RolloutDriverConfig => ({
  options: { ...options, ...o },
  sampling: { act: sampling, rehearse: sampling },
  maxConcurrentRollouts: 4,
  maxChecklists: 1,
  ...extra,
});
const failingJudge: JudgeTurnHook = async () => {
  throw new Error("a live-user instance without checklists must not be judged per turn");
};

/** A user simulator that speaks its lines in order, ending with the stop token. */
function linesUser(lines: string[]): ChatClient & { seen: ChatMessage[][] } {
  const seen: ChatMessage[][] = [];
  let i = 0;
  return {
    seen,
    async complete(req) {
      seen.push(req.messages);
      return { text: lines[i++] ?? "bye ###STOP###" };
    },
  };
}

/** The user sees only text turns; "###STOP###" anywhere ends the episode as user_stop. */
const liveUser: LiveUser = {
  async next(client, messages) {
    const visible = messages.filter((m) => (m.role === "user" || m.role === "assistant") && !m.tool_calls?.length);
    const { text } = await client.complete({ messages: visible });
    return { text, ...(typeof text === "string" && text.includes("###STOP###") ? { stop: "user_stop" } : {}) };
  },
};

/** Policy: looks the order up once, then answers with the status. */
function scriptedPolicy(): PolicyClient & { prompts: ChatMessage[][] } {
  const prompts: ChatMessage[][] = [];
  return {
    prompts,
    async generate(req: GenerateRequest) {
      prompts.push(req.messages);
      const last = req.messages[req.messages.length - 1];
      const text =
        last.role === "tool"
          ? `Your order is ${JSON.parse(last.content).status}.`
          : last.content.includes("order")
            ? '\n<tool_call>\n{"name": "get_order", "arguments": {"id": "A1"}}\n</tool_call>'
            : "Anything else?";
      return fakeGeneration(JSON.stringify(req.messages), text);
    },
  };
}

function instance(extra: Partial<TaskInstance> = {}): TaskInstance {
  return {
    id: "live-1",
    dataSource: "test:live",
    messages: [{ role: "system", content: "You are a shop assistant." }],
    tools: [{ type: "function", function: { name: "get_order", parameters: { type: "object", properties: { id: { type: "string" } } } } }],
    followUpUserMessages: ["THIS FOLLOW-UP MUST NOT BE REPLAYED"],
    checklists: [],
    environment: { create: () => ({ execute: (_n, args) => JSON.stringify({ id: JSON.parse(args).id, status: "delivered" }), snapshot: () => ({}) }) },
    liveUser,
    scoreEpisode: ({ messages, terminationReason }) => {
      const told = messages.some((m) => m.role === "assistant" && m.content.includes("delivered"));
      const reward = told && terminationReason === "user_stop" ? 1 : 0;
      return { reward, verdicts: [], detail: { told } };
    },
    ...extra,
  };
}

const job = (inst: TaskInstance) => expandJobs([inst], 1, "g")[0];

describe("live user in the rollout", () => {
  it("asks the user simulator for every user message, runs real tools, and scores the episode at the end", async () => {
    const user = linesUser(["Where is my order A1?", "Thanks, that is all. ###STOP###"]);
    const policy = scriptedPolicy();
    const r = await runOneRollout(job(instance()), { policy, userSimulator: user }, config(), failingJudge);

    expect(r.terminationReason).toBe("user_stop");
    expect(r.state.records.map((x) => x.role)).toEqual(["user", "act", "environment", "act", "user"]);
    expect(r.state.records.find((x) => x.role === "environment")?.real).toBe('{"id":"A1","status":"delivered"}');
    // The stop message stays in the conversation; the scripted follow-up never appears.
    expect(r.state.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(JSON.stringify(r.state.messages)).not.toContain("MUST NOT BE REPLAYED");
    // The user simulator saw the agent's text reply, never the tool call or its result.
    expect(user.seen[1].map((m) => m.content)).toEqual(["Where is my order A1?", "Your order is delivered."]);
    expect(r.state.userTurns).toBe(1);
    expect(r.state.records.map((x) => x.userTurn)).toEqual([0, 0, 0, 0, 1]);
    expect(r.episodeReward).toBe(1);
    expect(r.normalizedReward).toBe(1);
    expect(r.won).toBe(true);
    expect(r.judgements).toHaveLength(1);
    expect(r.judgements[0]).toMatchObject({ reward: 1, reason: "user_stop", detail: { told: true } });
  });

  it("ends with a recorded reason when the user simulator stalls, rambles, fails or is missing", async () => {
    const cases: { user?: ChatClient; timeoutMs?: number; reason: string; code: string }[] = [
      { user: linesUser(["   "]), reason: Termination.userStalled, code: "USER_STALLED" },
      { user: linesUser(["x".repeat(9000)]), reason: Termination.userGarbage, code: "USER_GARBAGE" },
      { user: { complete: async () => ({ text: 42 as unknown as string }) }, reason: Termination.userGarbage, code: "USER_GARBAGE" },
      { user: { complete: async () => Promise.reject(new Error("HTTP 503")) }, reason: Termination.userError, code: "USER_ERROR" },
      { user: { complete: () => new Promise(() => {}) }, timeoutMs: 30, reason: Termination.userStalled, code: "USER_STALLED" },
      { user: undefined, reason: Termination.userError, code: "USER_ERROR" },
    ];
    for (const c of cases) {
      const r = await runOneRollout(job(instance()), { policy: scriptedPolicy(), userSimulator: c.user }, config({}, c.timeoutMs ? { userSimulator: { timeoutMs: c.timeoutMs } } : {}), failingJudge);
      expect(r.terminationReason, c.code).toBe(c.reason);
      const last = r.state.records[r.state.records.length - 1];
      expect(last).toMatchObject({ role: "user", valid: false, error: { code: c.code } });
      expect(r.episodeReward).toBe(0);
      expect(r.state.messages.filter((m) => m.role === "user")).toHaveLength(0);
    }
  });

  it("ends as stalled when the user repeats the same message three times", async () => {
    const r = await runOneRollout(job(instance()), { policy: scriptedPolicy(), userSimulator: linesUser(["hello", "hello", "hello"]) }, config(), failingJudge);
    expect(r.terminationReason).toBe(Termination.userStalled);
    expect(r.state.records.filter((x) => x.role === "user").map((x) => x.valid)).toEqual([true, true, false]);
  });

  it("respects the user-turn cap and the episode score without a stop", async () => {
    const r = await runOneRollout(job(instance()), { policy: scriptedPolicy(), userSimulator: linesUser(["hi", "hey", "hello?", "anyone?"]) }, config({ maxUserTurns: 2 }), failingJudge);
    expect(r.terminationReason).toBe(Termination.maxUserTurns);
    expect(r.state.userTurns).toBe(2);
    expect(r.episodeReward).toBe(0);
  });

  it("keeps checklist judging for live-user instances that have checklist items, without ending at the checklist's length", async () => {
    let judged = 0;
    const judge: JudgeTurnHook = async ({ state }) => {
      judged++;
      return { userTurnIndex: state.userTurnIndex, reward: 0.5, checklistScores: [0.5], stop: true, reason: Termination.checklistComplete, verdicts: [], judgeCalls: 0, judgeFailures: 0 };
    };
    const item = { id: "a", question: "q", focus_on: "assistant.tool_calls" as const, pass_condition: "p", failure_examples: [], evidence: [], weight: 1, required_for_next_turn: false };
    const inst = instance({ checklists: [[[item]]], scoreEpisode: undefined });
    const r = await runOneRollout(job(inst), { policy: scriptedPolicy(), userSimulator: linesUser(["hi", "ok bye ###STOP###"]) }, config(), judge);
    expect(judged).toBe(1);
    expect(r.terminationReason).toBe("user_stop");
    expect(r.episodeReward).toBe(0.5);
  });

  it("ends the episode when the agent's reply is blank (a prompt that filled the context, or an empty answer)", async () => {
    const blank = (finishReason: "stop" | "length"): PolicyClient => ({
      generate: async () => ({ text: "", promptTokens: [1, 2, 3], tokens: [], logprobs: [], finishReason }),
    });
    for (const [finish, reason] of [["length", Termination.lengthExceeded], ["stop", Termination.emptyAgentReply]] as const) {
      const user = linesUser(["hi"]);
      const r = await runOneRollout(job(instance()), { policy: blank(finish), userSimulator: user }, config(), failingJudge);
      expect(r.terminationReason).toBe(reason);
      expect(r.state.records.map((x) => [x.role, x.valid])).toEqual([["user", true], ["act", false]]);
      expect(user.seen).toHaveLength(1);
      expect(r.episodeReward).toBe(0);
    }
  });

  it("a scoring failure gives reward 0 with the error kept", async () => {
    const inst = instance({
      scoreEpisode: () => {
        throw new Error("db replay broke");
      },
    });
    const r = await runOneRollout(job(inst), { policy: scriptedPolicy(), userSimulator: linesUser(["hi ###STOP###"]) }, config(), failingJudge);
    expect(r.terminationReason).toBe("user_stop");
    expect(r.episodeReward).toBe(0);
    expect(r.judgements[0].detail).toEqual({ error: "scoring failed: db replay broke" });
  });

  it("a reply with thinking only shows the user nothing: it ends the episode as a blank one", async () => {
    const thinking: PolicyClient = { generate: async () => fakeGeneration("p", "<think>\nI should greet.\n</think>\n\n") };
    const user = linesUser(["hi"]);
    const r = await runOneRollout(job(instance()), { policy: thinking, userSimulator: user }, config(), failingJudge);
    expect(r.terminationReason).toBe(Termination.emptyAgentReply);
    expect(user.seen).toHaveLength(1);
  });

  it("an agent stop token ends the episode as agent_stop after the message, without running its calls", async () => {
    let executed = 0;
    const env = { create: () => ({ execute: () => (executed++, "{}"), snapshot: () => ({}) }) };
    const stopping = (text: string): PolicyClient => ({ generate: async () => fakeGeneration("p", text) });
    for (const text of ["<think>\n###STOP### is what I write at the end\n</think>\n\nAll done. ###STOP###", 'Bye ###STOP###\n<tool_call>\n{"name": "get_order", "arguments": {"id": "A1"}}\n</tool_call>']) {
      const user = linesUser(["hi"]);
      const r = await runOneRollout(job(instance({ agentStopTokens: ["###STOP###"], environment: env })), { policy: stopping(text), userSimulator: user }, config(), failingJudge);
      expect(r.terminationReason).toBe(Termination.agentStop);
      expect(r.state.messages.at(-1)?.role).toBe("assistant");
      expect(user.seen).toHaveLength(1);
    }
    expect(executed).toBe(0);
    // In thinking alone the token does not count.
    const r = await runOneRollout(job(instance({ agentStopTokens: ["###STOP###"] })), { policy: stopping("<think>\n###STOP###\n</think>\n\nAnything else?"), userSimulator: linesUser(["hi", "no ###STOP###"]) }, config(), failingJudge);
    expect(r.terminationReason).toBe("user_stop");
  });

  it("counts upstream's orchestrator steps (user message, agent message, tool batch) and ends at the limit, over a stop", async () => {
    // user(1) act+call(2) tools(3) act reply(4) user(5) …
    const run = (max: number, lines: string[]) =>
      runOneRollout(job(instance({ maxEpisodeSteps: max })), { policy: scriptedPolicy(), userSimulator: linesUser(lines) }, config(), failingJudge);
    const three = await run(3, ["Where is my order A1?", "thanks ###STOP###"]);
    expect(three.terminationReason).toBe(Termination.maxSteps);
    expect(three.state.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(three.state.episodeSteps).toBe(3);
    // The fifth step is the user's stop message: the limit replaces its ending, as upstream's check after each step does.
    const five = await run(5, ["Where is my order A1?", "thanks ###STOP###"]);
    expect(five.terminationReason).toBe(Termination.maxSteps);
    expect(five.state.messages.at(-1)).toMatchObject({ role: "user", content: "thanks ###STOP###" });
    const six = await run(6, ["Where is my order A1?", "thanks ###STOP###"]);
    expect(six.terminationReason).toBe("user_stop");
    expect(six.state.episodeSteps).toBe(5);
    // An agent message with calls at the limit leaves its calls unrun.
    const two = await run(2, ["Where is my order A1?"]);
    expect(two.terminationReason).toBe(Termination.maxSteps);
    expect(two.state.records.map((x) => x.role)).toEqual(["user", "act"]);
  });

  it("lets the user repeat itself where the instance allows it", async () => {
    const r = await runOneRollout(job(instance({ allowRepeatedUserMessages: true })), { policy: scriptedPolicy(), userSimulator: linesUser(["hello", "hello", "hello", "ok ###STOP###"]) }, config(), failingJudge);
    expect(r.terminationReason).toBe("user_stop");
  });

  it("hands the run's judge to the episode scorer; a judge failure it reports is an error of kind judge", async () => {
    const judge: ChatClient = { complete: async () => ({ text: "verdict" }) };
    let seen: ChatClient | undefined;
    const inst = instance({
      scoreEpisode: async (ctx) => {
        seen = ctx.judge;
        const { text } = await ctx.judge!.complete({ messages: [] });
        return { reward: 0, verdicts: [], error: `the judge said "${text}", which is not JSON`, errorKind: "judge" };
      },
    });
    const r = await runOneRollout(job(inst), { policy: scriptedPolicy(), userSimulator: linesUser(["hi ###STOP###"]), judge }, config(), failingJudge);
    expect(seen).toBe(judge);
    expect(r.outcome).toBe("error");
    expect(r.error).toEqual({ kind: "judge", cause: 'judge failed: the judge said "verdict", which is not JSON' });
  });
});

describe("a live user that acts on the episode's world (tau2 telecom: the user's phone)", () => {
  /** The world counts the user's own calls; the user calls it once per message before speaking. */
  function actingInstance(): { instance: TaskInstance; worlds: { userCalls: string[] }[] } {
    const worlds: { userCalls: string[] }[] = [];
    const acting: LiveUser = {
      needsWorld: true,
      async next(client, messages, { world }) {
        const w = world as unknown as { userCall(name: string): string } | undefined;
        if (!w) throw new Error("no world for the user");
        const content = w.userCall("check_status_bar");
        const { text } = await client.complete({ messages });
        return { text, actions: [{ call: { id: `u${messages.length}`, name: "check_status_bar", argumentsJson: "{}" }, content }], ...(text.includes("###STOP###") ? { stop: "user_stop" } : {}) };
      },
    };
    const inst = instance({
      liveUser: acting,
      environment: {
        create: () => {
          const state = { userCalls: [] as string[] };
          worlds.push(state);
          return {
            execute: (_n: string, args: string) => JSON.stringify({ id: JSON.parse(args).id, status: "delivered" }),
            snapshot: () => ({}),
            userCall: (name: string) => {
              state.userCalls.push(name);
              return `Status Bar: ${state.userCalls.length} check(s)`;
            },
          };
        },
      },
    });
    return { instance: inst, worlds };
  }

  it("records the user's calls as user_tool turns before its message, never in the agent's conversation", async () => {
    const { instance: inst, worlds } = actingInstance();
    const [job] = expandJobs([inst], 1, "g");
    const r = await runOneRollout(job!, { policy: scriptedPolicy(), userSimulator: linesUser(["Where is my order?", "ok ###STOP###"]) }, config(), failingJudge);
    expect(r.terminationReason).toBe("user_stop");
    expect(r.state.records.map((x) => x.role)).toEqual(["user_tool", "user", "act", "environment", "act", "user_tool", "user"]);
    expect(r.state.records[0]).toMatchObject({ role: "user_tool", call: { name: "check_status_bar", argumentsJson: "{}" }, text: "Status Bar: 1 check(s)", real: "Status Bar: 1 check(s)" });
    expect(r.state.messages.some((m) => m.content.includes("Status Bar"))).toBe(false);
    expect(worlds[0]!.userCalls).toEqual(["check_status_bar", "check_status_bar"]);
  });

  it("creates the world for the user even where the agent's calls are rehearsed (no shadow execution)", async () => {
    const { instance: inst, worlds } = actingInstance();
    const [job] = expandJobs([inst], 1, "g");
    const rehearsing: PolicyClient = {
      async generate(req) {
        return req.role === "rehearse" ? fakeGeneration("r", '<execution_result>\n{"status": "imagined"}\n</execution_result>') : scriptedPolicy().generate(req);
      },
    };
    const r = await runOneRollout(job!, { policy: rehearsing, userSimulator: linesUser(["Where is my order?", "ok ###STOP###"]) }, config({ paradigm: "rehearse" }), failingJudge);
    expect(worlds).toHaveLength(1);
    expect(worlds[0]!.userCalls.length).toBeGreaterThan(0);
    expect(r.state.records.filter((x) => x.role === "environment")).toHaveLength(0);
  });
});
