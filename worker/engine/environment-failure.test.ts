/**
 * Environments that break (EnvironmentFailure): a world that does not start, a call that crashes or
 * hangs the server. The episode ends with a recorded `environment_error:<code>`, the step goes on,
 * such episodes are never trained on, and too many of them fail the step as configured. Tool answers
 * carrying the environment's own error flag (ToolOutcome.isError) reach the fidelity score.
 */
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../contracts/run-config";
import { fakeGeneration } from "../../test/doubles/shop-oracle";
import { StepFailedError } from "./health";
import type { GenerateRequest, PolicyClient, TrainerClient, TrainingDatum } from "./io";
import { expandJobs, runOneRollout, type JudgeTurnHook, type RolloutDriverConfig } from "./rollout";
import { runEvaluation, runTrainingStep } from "./step";
import { EnvironmentFailure, type TaskInstance, type ToolEnvironment, type ToolOutcome } from "./types";

const sampling = { temperature: 1, topP: 1, maxTokens: 100 };
const driver = (paradigm: "environment" | "rehearse", extra: { shadowExecution?: boolean; fidelityProbe?: boolean } = {}): RolloutDriverConfig => ({
  options: { paradigm, shadowExecution: extra.shadowExecution ?? false, fidelityProbe: extra.fidelityProbe, maxAssistantTurns: 4, maxUserTurns: 1, maxMicroSteps: 20, promptBudgetTokens: 100_000 },
  sampling: { act: sampling, rehearse: sampling },
  maxConcurrentRollouts: 1,
  maxChecklists: 1,
});
const judge: JudgeTurnHook = async ({ state }) => ({ userTurnIndex: state.userTurnIndex, reward: 1, checklistScores: [1], stop: true, reason: "checklist_complete", verdicts: [], judgeCalls: 0, judgeFailures: 0 });

/** Calls `lookup` once (then replies); rehearses `{"error": "no such key"}`. */
const policy: PolicyClient = {
  async generate(req: GenerateRequest) {
    if (req.role === "rehearse") return fakeGeneration("", '\n<execution_result>\n{"error": "no such key"}\n</execution_result>');
    const called = req.messages.some((m) => m.role === "tool");
    return fakeGeneration("", called ? "Done." : '\n<tool_call>\n{"name": "lookup", "arguments": {"key": "k"}}\n</tool_call>');
  },
};

function instance(id: string, world: () => Promise<ToolEnvironment>): TaskInstance {
  return {
    id,
    dataSource: "test",
    messages: [{ role: "user", content: "look it up" }],
    tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { key: { type: "string" } } } } }],
    followUpUserMessages: [],
    // Checked programmatically: the steps below need no judge (a missing judge would make every episode an error).
    checklists: [[[{ id: "c", question: "q", focus_on: "assistant.tool_calls", pass_condition: "", failure_examples: [], evidence: [], weight: 1, required_for_next_turn: false, check: { type: "tool_called", name: "lookup" } }]]],
    environment: { create: world },
  };
}

const answering = (answer: string | ToolOutcome, closed: string[] = []) => async (): Promise<ToolEnvironment> => ({
  execute: async () => answer,
  snapshot: () => null,
  close: () => void closed.push("closed"),
});
const crashing = (closed: string[] = []) => async (): Promise<ToolEnvironment> => ({
  execute: async () => {
    throw new EnvironmentFailure("CRASHED", "the server exited with code 3");
  },
  snapshot: () => null,
  close: () => void closed.push("closed"),
});

describe("an environment that breaks", () => {
  it("ends the episode with a recorded environment error when the world does not start", async () => {
    const job = expandJobs([instance("t", async () => { throw new Error("spawn nope ENOENT"); })], 1, "g")[0]!;
    const result = await runOneRollout(job, { policy }, driver("environment"), judge);
    expect(result.terminationReason).toBe("environment_error:START_FAILED");
    expect(result.state.records).toEqual([expect.objectContaining({ role: "environment", valid: false, error: { code: "START_FAILED", payload: "spawn nope ENOENT" } })]);
    expect(result.normalizedReward).toBe(0);

    const coded = expandJobs([instance("t", async () => { throw new EnvironmentFailure("TIMEOUT", "no initialize answer within 1 s"); })], 1, "g")[0]!;
    expect((await runOneRollout(coded, { policy }, driver("environment"), judge)).terminationReason).toBe("environment_error:TIMEOUT");
  });

  it("ends the episode on the call that broke it, in the environment paradigm, and closes the world", async () => {
    const closed: string[] = [];
    const result = await runOneRollout(expandJobs([instance("t", crashing(closed))], 1, "g")[0]!, { policy }, driver("environment"), judge);
    expect(result.terminationReason).toBe("environment_error:CRASHED");
    const last = result.state.records.at(-1)!;
    expect(last).toMatchObject({ role: "environment", call: { name: "lookup" }, error: { code: "CRASHED", payload: "the server exited with code 3" } });
    expect(closed).toEqual(["closed"]);
  });

  it("keeps the rehearsal but ends the episode when shadow execution breaks the environment", async () => {
    const result = await runOneRollout(expandJobs([instance("t", crashing())], 1, "g")[0]!, { policy }, driver("rehearse", { shadowExecution: true }), judge);
    expect(result.terminationReason).toBe("environment_error:CRASHED");
    const rehearse = result.state.records.find((r) => r.role === "rehearse")!;
    expect(rehearse.rehearsed).toBe('{"error": "no such key"}');
    expect(rehearse.real).toBeUndefined();
    expect(rehearse.fidelity).toBeUndefined();
  });

  it("a thrown error that is not an EnvironmentFailure stays a tool answer (the reference's behaviour)", async () => {
    const world = async (): Promise<ToolEnvironment> => ({ execute: () => { throw new Error("bad key"); }, snapshot: () => null });
    const result = await runOneRollout(expandJobs([instance("t", world)], 1, "g")[0]!, { policy }, driver("environment"), judge);
    expect(result.terminationReason).toBe("tool_error:ENVIRONMENT_EXCEPTION");
  });
});

describe("the environment's own error flag", () => {
  it("decides error agreement under shadow execution: an error flagged by the server agrees with a rehearsed error", async () => {
    // Text that no convention reads as an error: only the flag says so.
    const flagged = await runOneRollout(expandJobs([instance("t", answering({ content: "key k is unknown", isError: true }))], 1, "g")[0]!, { policy }, driver("rehearse", { shadowExecution: true }), judge);
    const rehearse = flagged.state.records.find((r) => r.role === "rehearse")!;
    expect(rehearse.real).toBe("key k is unknown");
    expect(rehearse.fidelity).toMatchObject({ outcome: "both_errors", score: 1 });

    // A value that looks like an error by convention but that the server says is none.
    const unflagged = await runOneRollout(expandJobs([instance("t", answering({ content: '{"error": "none"}', isError: false }))], 1, "g")[0]!, { policy }, driver("rehearse", { shadowExecution: true }), judge);
    expect(unflagged.state.records.find((r) => r.role === "rehearse")!.fidelity).toMatchObject({ outcome: "error_mismatch", score: 0 });
  });

  it("reaches the fidelity probe in the environment paradigm", async () => {
    const result = await runOneRollout(expandJobs([instance("t", answering({ content: "key k is unknown", isError: true }))], 1, "g")[0]!, { policy }, driver("environment", { fidelityProbe: true }), judge);
    const env = result.state.records.find((r) => r.role === "environment")!;
    expect(env.real).toBe("key k is unknown");
    expect(env.fidelity).toMatchObject({ outcome: "both_errors" });
    // The flagged error is an answer the policy sees, not the end of the episode.
    expect(result.terminationReason).toBe("checklist_complete");
  });
});

function config(over: { maxEnvironmentErrorShare?: number; kind?: "train" | "eval" } = {}) {
  const input: RunConfigInput = {
    kind: over.kind ?? "train",
    data: { dataset: "builtin:shop", instancesPerStep: 4, rolloutsPerInstance: 2 },
    rollout: { paradigm: "environment", maxAssistantTurns: 4, maxUserTurns: 1, ...(over.maxEnvironmentErrorShare !== undefined ? { maxEnvironmentErrorShare: over.maxEnvironmentErrorShare } : {}) },
    sampling: { act: sampling, rehearse: sampling, evalAct: sampling, evalRehearse: sampling },
  };
  const r = parseRunConfig(input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

function recordingTrainer() {
  const datums: TrainingDatum[][] = [];
  const trainer: TrainerClient = {
    forwardBackward: async (data) => (datums.push(data), { metrics: {} }),
    optimStep: async () => ({ metrics: {} }),
    updateSampler: async () => {},
    saveWeightsForSampler: async (name) => ({ path: name }),
    saveState: async (name) => ({ path: name }),
    loadState: async () => {},
  };
  return { trainer, datums };
}

/** Four tasks; `broken` of them crash their server on the first call. */
const tasks = (broken: number) => [0, 1, 2, 3].map((i) => instance(`t${i}`, i < broken ? crashing() : answering('{"value": 1}')));

describe("a step with environment errors", () => {
  it("goes on below the configured share, trains only on healthy episodes and reports the share", async () => {
    const { trainer, datums } = recordingTrainer();
    const result = await runTrainingStep({ instances: tasks(1), config: config(), policy, trainer, stepIndex: 1 });
    expect(result.trajectories.filter((t) => t.terminationReason === "environment_error:CRASHED")).toHaveLength(2);
    expect(result.metrics["environment/errors"]).toBe(2);
    expect(result.metrics["environment/error_share"]).toBe(0.25);
    expect(result.metrics["episodes/errored"]).toBe(2);
    expect(result.metrics["episodes/errored/environment"]).toBe(2);
    expect(result.metrics["termination/environment_error:CRASHED"]).toBe(2);
    // Errored episodes are recorded with their cause and left out of the scores.
    expect(result.trajectories.filter((t) => t.outcome === "error").map((t) => t.error)).toEqual([
      { kind: "environment", cause: "environment failed: CRASHED — the server exited with code 3" },
      { kind: "environment", cause: "environment failed: CRASHED — the server exited with code 3" },
    ]);
    expect(result.trajectories.filter((t) => t.outcome !== "error").every((t) => t.outcome === "success")).toBe(true);
    expect(result.metrics["episode/avg@2"]).toBe(1);
    // Healthy episodes: 3 tasks × 2 rollouts, each with two act generations (the call, then the reply).
    expect(datums[0]).toHaveLength(12);
    const crashed = result.trajectories.find((t) => t.terminationReason.startsWith("environment_error"))!;
    expect(crashed.turns.filter((t) => t.role === "act").every((t) => t.advantage === undefined)).toBe(true);
  });

  it("fails the step above the configured share, naming the first error", async () => {
    const { trainer } = recordingTrainer();
    const failed = runTrainingStep({ instances: tasks(2), config: config({ maxEnvironmentErrorShare: 0.25 }), policy, trainer, stepIndex: 2 });
    await expect(failed).rejects.toBeInstanceOf(StepFailedError);
    await expect(failed).rejects.toMatchObject({
      code: "TOO_MANY_ERRORED_EPISODES",
      message: expect.stringMatching(/4 of 8 episodes \(50%\) errored, above rollout\.maxEnvironmentErrorShare = 0\.25 \(environment failed: 4\); first: environment failed: CRASHED — the server exited with code 3/),
    });
  });

  it("fails an evaluation in which every episode broke, whatever the share", async () => {
    await expect(runEvaluation({ instances: tasks(4), config: config({ kind: "eval", maxEnvironmentErrorShare: 1 }), policy, stepIndex: 1 })).rejects.toMatchObject({
      code: "TOO_MANY_ERRORED_EPISODES",
      message: expect.stringMatching(/every episode \(\d+ of \d+\) errored \(environment failed: \d+\); first: environment failed: CRASHED/),
    });
    const ok = await runEvaluation({ instances: tasks(3), config: config({ kind: "eval", maxEnvironmentErrorShare: 1 }), policy, stepIndex: 1 });
    expect(ok.metrics["environment/error_share"]).toBe(0.75);
  });
});
