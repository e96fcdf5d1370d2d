/**
 * Instance-level episode shapes the rollout supports besides checklists and live users: scripted user
 * turns scored at the end, tools that change between user turns, a per-turn act limit, answer-only
 * episodes, and worlds that run prerequisite episodes (WorldContext).
 */
import { describe, expect, it } from "vitest";
import { fakeGeneration } from "../../test/doubles/shop-oracle";
import type { ChatMessage, GenerateRequest, PolicyClient, ToolSchema } from "./io";
import { expandJobs, type JudgeTurnHook, type RolloutDriverConfig, type RolloutOptions, runOneRollout, Termination } from "./rollout";
import type { TaskInstance, ToolEnvironment, WorldContext } from "./types";

const sampling = { temperature: 1, topP: 1, maxTokens: 100 };
const options: RolloutOptions = { paradigm: "environment", shadowExecution: false, maxAssistantTurns: 100, maxUserTurns: 30, maxMicroSteps: 500, promptBudgetTokens: 1_000_000 };
const config = (o: Partial<RolloutOptions> = {}): RolloutDriverConfig => ({ options: { ...options, ...o }, sampling: { act: sampling, rehearse: sampling }, maxConcurrentRollouts: 4, maxChecklists: 1 });
const noJudge: JudgeTurnHook = async () => {
  throw new Error("an instance scored at the end must never be judged per turn");
};

const tool = (name: string): ToolSchema => ({ type: "function", function: { name, parameters: { type: "object", properties: {} } } });
const call = (name: string) => `\n<tool_call>\n${JSON.stringify({ name, arguments: {} })}\n</tool_call>`;

/** Calls `name` once per user turn (the tool of the turn's message), then answers in text. */
function perTurnPolicy(): PolicyClient & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    async generate(req) {
      requests.push(req);
      const last = req.messages[req.messages.length - 1];
      const text = last.role === "user" ? call(last.content) : "done";
      return fakeGeneration(JSON.stringify(req.messages), text);
    },
  };
}

function recordingWorld(executed: string[]): ToolEnvironment {
  return { execute: (name) => (executed.push(name), `${name} ok`), snapshot: () => ({}) };
}

function scriptedInstance(executed: string[], extra: Partial<TaskInstance> = {}): TaskInstance {
  return {
    id: "scripted-1",
    dataSource: "test:scripted",
    messages: [{ role: "user", content: "alpha" }],
    tools: [tool("alpha"), tool("beta"), tool("gamma")],
    followUpUserMessages: ["beta", "gamma"],
    checklists: [],
    environment: { create: () => recordingWorld(executed) },
    scoreEpisode: ({ messages, terminationReason }) => ({
      reward: terminationReason === Termination.scriptComplete ? 1 : 0,
      verdicts: [],
      detail: { users: messages.filter((m) => m.role === "user").map((m) => m.content) },
    }),
    ...extra,
  };
}

const runOne = (instance: TaskInstance, policy: PolicyClient, o: Partial<RolloutOptions> = {}) => runOneRollout(expandJobs([instance], 1, "t")[0], { policy }, config(o), noJudge);

describe("scripted user turns (scoreEpisode without checklist or live user)", () => {
  it("plays every scripted turn: a reply without calls ends the turn, the next scripted message follows", async () => {
    const executed: string[] = [];
    const policy = perTurnPolicy();
    const r = await runOne(scriptedInstance(executed), policy);
    expect(r.terminationReason).toBe(Termination.scriptComplete);
    expect(executed).toEqual(["alpha", "beta", "gamma"]);
    expect(r.state.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["alpha", "beta", "gamma"]);
    expect(r.state.records.filter((x) => x.role === "user").map((x) => x.userTurn)).toEqual([1, 2]);
    expect(r.normalizedReward).toBe(1);
    // One act with calls and one final reply per turn.
    expect(policy.requests).toHaveLength(6);
  });

  it("offers each turn's tools (toolsByUserTurn) to the act role and to the rehearse prompt", async () => {
    const executed: string[] = [];
    const byTurn = [[tool("alpha")], [tool("alpha"), tool("beta")], [tool("alpha"), tool("beta"), tool("gamma")]];
    const policy = perTurnPolicy();
    await runOne(scriptedInstance(executed, { toolsByUserTurn: byTurn }), policy);
    const actTools = policy.requests.filter((q) => q.role === "act").map((q) => q.tools?.map((t) => t.function.name).join(","));
    expect(actTools).toEqual(["alpha", "alpha", "alpha,beta", "alpha,beta", "alpha,beta,gamma", "alpha,beta,gamma"]);

    // Rehearse paradigm: the rehearse prompt documents the tools of the current turn.
    const rehearsePrompts: ChatMessage[][] = [];
    const rehearsing: PolicyClient = {
      async generate(req) {
        if (req.role === "rehearse") {
          rehearsePrompts.push(req.messages);
          return fakeGeneration("p", '\n<execution_result>\n{"ok": true}\n</execution_result>');
        }
        return policy.generate(req);
      },
    };
    await runOne(scriptedInstance([], { toolsByUserTurn: byTurn }), rehearsing, { paradigm: "rehearse" });
    expect(rehearsePrompts).toHaveLength(3);
    expect(JSON.stringify(rehearsePrompts[0])).not.toContain("gamma");
    expect(JSON.stringify(rehearsePrompts[2])).toContain("gamma");
  });

  it("ends the episode after more than maxActsPerUserTurn act steps in one turn, once the step's calls ran", async () => {
    const executed: string[] = [];
    const looping: PolicyClient = { generate: async () => fakeGeneration("p", call("alpha")) };
    const r = await runOne(scriptedInstance(executed, { maxActsPerUserTurn: 3 }), looping);
    expect(r.terminationReason).toBe(Termination.maxActsPerUserTurn);
    expect(executed).toHaveLength(4);
    expect(r.state.records.filter((x) => x.role === "act")).toHaveLength(4);
  });
});

describe("answer-only episodes", () => {
  it("ends after the first reply without executing its calls, and scores the recorded reply", async () => {
    let created = 0;
    const instance: TaskInstance = {
      id: "single-1",
      dataSource: "test:single",
      messages: [{ role: "user", content: "alpha" }],
      tools: [tool("alpha")],
      followUpUserMessages: [],
      checklists: [],
      answerOnly: true,
      environment: { create: () => (created++, recordingWorld([])) },
      scoreEpisode: ({ records }) => ({ reward: records[0]?.calls?.[0]?.name === "alpha" ? 1 : 0, verdicts: [] }),
    };
    const r = await runOne(instance, perTurnPolicy());
    expect(r.terminationReason).toBe(Termination.answered);
    expect(r.normalizedReward).toBe(1);
    expect(r.state.records.map((x) => x.role)).toEqual(["act"]);
    // The environment paradigm creates the world, but nothing is executed in it.
    expect(r.state.messages.some((m) => m.role === "tool")).toBe(false);
    expect(created).toBeLessThanOrEqual(1);

    const broken = await runOne(instance, { generate: async () => fakeGeneration("p", "<tool_call>\n{not json\n</tool_call>") });
    expect(broken.terminationReason).toBe(Termination.answered);
    expect(broken.state.records[0].error?.code).toBeTruthy();
  });
});

describe("WorldContext", () => {
  it("gives the factory the rollout index and runs prerequisite episodes with the same policy", async () => {
    const seen: number[] = [];
    const prereqExecuted: string[] = [];
    const prereq = scriptedInstance(prereqExecuted, { id: "prereq", followUpUserMessages: [] });
    const instance = scriptedInstance([], {
      followUpUserMessages: [],
      environment: {
        async create(ctx?: WorldContext) {
          seen.push(ctx!.rolloutIndex);
          const before = await ctx!.runEpisode(prereq, "prereq-0");
          expect(before.terminationReason).toBe(Termination.scriptComplete);
          return recordingWorld([]);
        },
      },
    });
    const jobs = expandJobs([instance], 2, "t");
    const policy = perTurnPolicy();
    for (const job of jobs) await runOneRollout(job, { policy }, config(), noJudge);
    expect(seen).toEqual([0, 1]);
    expect(prereqExecuted).toEqual(["alpha", "alpha"]);
  });
});

describe("a bound on executed calls per user turn (maxExecutedCallsPerUserTurn)", () => {
  /** Replies with `batch` calls every time: the loop ends only through the bound. */
  function batchPolicy(batch: number): PolicyClient {
    return { generate: async (req) => fakeGeneration(JSON.stringify(req.messages), Array.from({ length: batch }, () => call("alpha")).join("")) };
  }

  it("runs a reply's calls while at most N ran in the turn, then keeps the next reply with its calls unrun (upstream: tool_num <= 20)", async () => {
    const executed: string[] = [];
    const r = await runOne(scriptedInstance(executed, { followUpUserMessages: [], maxExecutedCallsPerUserTurn: 20 }), batchPolicy(1));
    // Calls run at counts 0..20 before each batch: 21 in all; the 22nd reply's call stays unrun.
    expect(executed).toHaveLength(21);
    expect(r.terminationReason).toBe(Termination.maxToolCalls);
    const acts = r.state.records.filter((x) => x.role === "act");
    expect(acts).toHaveLength(22);
    expect(acts[21]!.calls).toHaveLength(1);
    expect(r.state.messages[r.state.messages.length - 1]!.role).toBe("assistant");
  });

  it("counts calls, not replies: a batch of 3 starts while the count is ≤ 4", async () => {
    const executed: string[] = [];
    const r = await runOne(scriptedInstance(executed, { followUpUserMessages: [], maxExecutedCallsPerUserTurn: 4 }), batchPolicy(3));
    expect(executed).toHaveLength(6);
    expect(r.terminationReason).toBe(Termination.maxToolCalls);
  });
});
