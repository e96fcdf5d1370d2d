/** Per-episode worlds (TaskInstance.environment): created, possibly asynchronously, for each rollout or replay, and closed after it. */
import { describe, expect, it } from "vitest";
import { fakeGeneration } from "../../test/doubles/shop-oracle";
import type { GenerateRequest, PolicyClient } from "./io";
import { replaySnapshot } from "./reward";
import { expandJobs, runOneRollout, type JudgeTurnHook, type RolloutDriverConfig } from "./rollout";
import type { TaskInstance, ToolEnvironment } from "./types";

const sampling = { temperature: 1, topP: 1, maxTokens: 100 };
const config = (paradigm: "environment" | "rehearse"): RolloutDriverConfig => ({
  options: { paradigm, shadowExecution: false, maxAssistantTurns: 4, maxUserTurns: 1, maxMicroSteps: 20, promptBudgetTokens: 100_000 },
  sampling: { act: sampling, rehearse: sampling },
  maxConcurrentRollouts: 1,
  maxChecklists: 1,
});
const judge: JudgeTurnHook = async ({ state }) => ({ userTurnIndex: state.userTurnIndex, reward: 1, checklistScores: [1], stop: true, reason: "checklist_complete", verdicts: [], judgeCalls: 0, judgeFailures: 0 });

/** Calls `ping` once, then replies. */
const policy: PolicyClient = {
  async generate(req: GenerateRequest) {
    if (req.role === "rehearse") return fakeGeneration("", '\n<execution_result>\n{"pong":true}\n</execution_result>');
    const called = req.messages.some((m) => m.role === "tool");
    return fakeGeneration("", called ? "Done." : '\n<tool_call>\n{"name": "ping", "arguments": {}}\n</tool_call>');
  },
};

/** A world started asynchronously (like a server process) that records its lifecycle. */
function trackedInstance(events: string[], opts: { failClose?: boolean } = {}): TaskInstance {
  let worlds = 0;
  return {
    id: "tracked",
    dataSource: "test",
    messages: [{ role: "user", content: "ping it" }],
    tools: [{ type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } }],
    followUpUserMessages: [],
    checklists: [[[{ id: "c", question: "q", focus_on: "assistant.tool_calls", pass_condition: "", failure_examples: [], evidence: [], weight: 1, required_for_next_turn: false }]]],
    environment: {
      async create(): Promise<ToolEnvironment> {
        const n = ++worlds;
        await new Promise((r) => setTimeout(r, 5));
        events.push(`start ${n}`);
        return {
          execute: async (name) => (events.push(`${name} ${n}`), '{"pong":true}'),
          snapshot: () => ({ world: n }),
          close: async () => {
            events.push(`close ${n}`);
            if (opts.failClose) throw new Error("already gone");
          },
        };
      },
    },
  };
}

describe("per-episode worlds", () => {
  it("starts a world for each environment rollout and closes it after, even when closing fails", async () => {
    const events: string[] = [];
    const inst = trackedInstance(events, { failClose: true });
    const [a, b] = expandJobs([inst], 2, "g");
    const first = await runOneRollout(a!, { policy }, config("environment"), judge);
    const second = await runOneRollout(b!, { policy }, config("environment"), judge);
    expect(first.state.records.find((r) => r.role === "environment")?.real).toBe('{"pong":true}');
    expect(second.terminationReason).toBe(first.terminationReason);
    expect(events).toEqual(["start 1", "ping 1", "close 1", "start 2", "ping 2", "close 2"]);
  });

  it("starts no world when the paradigm needs none", async () => {
    const events: string[] = [];
    await runOneRollout(expandJobs([trackedInstance(events)], 1, "g")[0]!, { policy }, config("rehearse"), judge);
    expect(events).toEqual([]);
  });

  it("closes the world a replay used for its snapshot", async () => {
    const events: string[] = [];
    const snapshot = await replaySnapshot(trackedInstance(events), [
      { role: "assistant", content: "", tool_calls: [{ id: "1", type: "function", function: { name: "ping", arguments: "{}" } }] },
    ]);
    expect(snapshot).toEqual({ world: 1 });
    expect(events).toEqual(["start 1", "ping 1", "close 1"]);
  });
});
