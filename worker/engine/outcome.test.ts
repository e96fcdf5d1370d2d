/**
 * The outcome of an episode is the benchmark's own verdict: a partial checklist reward is a failure (not a
 * success, not an error), reward 1.0 of an end-of-episode score is a success unless the score says
 * otherwise, and an episode that could not run is an error naming its cause. The reference's `won` (E > 0)
 * stays beside it for its own metrics.
 */
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../contracts/run-config";
import { fakeGeneration } from "../../test/doubles/shop-oracle";
import type { ChatClient, GenerateRequest, PolicyClient, TrainerClient } from "./io";
import type { TurnRecord } from "./machine";
import { checklistSuccess, decideOutcome, episodeError } from "./outcome";
import { expandJobs, runOneRollout } from "./rollout";
import { createJudge, driverConfigFrom, judgeHookFor, rolloutMetrics, runEvaluation, runTrainingStep, toTrajectory, type TrajectoryResult } from "./step";
import type { ChecklistItem, EpisodeScore, ProgrammaticCheck, TaskInstance } from "./types";

const sampling = { temperature: 1, topP: 1, maxTokens: 100 };
function config(over: RunConfigInput = {}) {
  const r = parseRunConfig({
    kind: "eval",
    data: { dataset: "builtin:shop" },
    sampling: { act: sampling, rehearse: sampling, evalAct: sampling, evalRehearse: sampling },
    ...over,
    rollout: { paradigm: "rehearse", maxAssistantTurns: 4, maxUserTurns: 3, ...over.rollout },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

const item = (id: string, weight: number, check: ProgrammaticCheck, required = false): ChecklistItem => ({
  id,
  question: id,
  focus_on: check.type === "tool_called" ? "assistant.tool_calls" : "assistant.content.user_visible_reply",
  pass_condition: "",
  failure_examples: [],
  evidence: [],
  weight,
  required_for_next_turn: required,
  check,
});

/** Calls `lookup` once and then replies "done"; rehearses a plain answer. */
const policy: PolicyClient = {
  async generate(req: GenerateRequest) {
    if (req.role === "rehearse") return fakeGeneration("p", '\n<execution_result>\n{"value": 1}\n</execution_result>');
    const called = req.messages.filter((m) => m.role === "tool").length >= req.messages.filter((m) => m.role === "user").length;
    return fakeGeneration("p", called ? "done" : '\n<tool_call>\n{"name": "lookup", "arguments": {"key": "k"}}\n</tool_call>');
  },
};

function task(checklist: ChecklistItem[][], followUps: string[] = []): TaskInstance {
  return {
    id: "t",
    dataSource: "test",
    messages: [{ role: "user", content: "look it up" }],
    tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { key: { type: "string" } } } } }],
    followUpUserMessages: followUps,
    checklists: [checklist],
  };
}

async function episode(instance: TaskInstance, p: PolicyClient = policy, judge?: ChatClient): Promise<TrajectoryResult> {
  const cfg = config();
  const [job] = expandJobs([instance], 1, "g");
  const r = await runOneRollout(job!, { policy: p }, driverConfigFrom(cfg, "eval", {}), judgeHookFor(createJudge(cfg, judge, async () => {}), 1));
  return toTrajectory(r, "rehearse");
}

const called: ProgrammaticCheck = { type: "tool_called", name: "lookup" };
const saysDone: ProgrammaticCheck = { type: "reply_contains", all: ["done"] };
const saysNope: ProgrammaticCheck = { type: "reply_contains", all: ["refund issued"] };

describe("the outcome of a checklist episode", () => {
  it("is a success only when every item of every checklist turn passed", async () => {
    const t = await episode(task([[item("call", 0.5, called), item("reply", 0.5, saysDone)]]));
    expect(t).toMatchObject({ terminationReason: "checklist_complete", reward: 1, outcome: "success", success: true, won: true });
    expect(t.error).toBeUndefined();
  });

  it("a partial reward that ended judge_required_failed is a failure — not a success, not an error — while `won` stays true", async () => {
    // 4 items of weight 0.25: the call passes, a required reply item fails and stops the episode.
    const t = await episode(task([[item("call", 0.25, called), item("reply", 0.25, saysNope, true), item("r2", 0.25, saysNope), item("r3", 0.25, saysNope)]]));
    expect(t).toMatchObject({ terminationReason: "judge_required_failed", reward: 0.25, outcome: "failure", success: false, won: true });
  });

  it("a partial reward on a completed checklist is a failure too", async () => {
    const t = await episode(task([[item("call", 0.5, called), item("reply", 0.5, saysNope)]]));
    expect(t).toMatchObject({ terminationReason: "checklist_complete", reward: 0.5, outcome: "failure", success: false });
  });

  it("needs every turn: the first turn passing and the second not is a failure", async () => {
    const t = await episode(task([[item("call", 1, called)], [item("reply", 1, saysNope)]], ["and again"]));
    expect(t.judgements.map((j) => j.allPassed)).toEqual([true, false]);
    expect(t).toMatchObject({ outcome: "failure", success: false });
    const both = await episode(task([[item("call", 1, called)], [item("call2", 1, called)]], ["and again"]));
    expect(both).toMatchObject({ outcome: "success", success: true, reward: 1 });
  });

  it("a judge that cannot give verdicts makes the episode an error naming the judge's failure", async () => {
    const broken: ChatClient = { complete: async () => ({ text: "no verdict here" }) };
    const judged = task([[{ ...item("q", 1, called), check: undefined }]]);
    const t = await episode(judged, policy, broken);
    expect(t).toMatchObject({ terminationReason: "judge_failed", outcome: "error", success: false, error: { kind: "judge", cause: "judge failed: verdict is not a JSON object: no verdict here" } });
  });

  it("a policy node that fails a generation makes the episode an error, and so does a prompt over the context", async () => {
    const down: PolicyClient = { generate: async () => Promise.reject(new Error("HTTP 503 from node big-gpu")) };
    expect(await episode(task([[item("call", 1, called)]]), down)).toMatchObject({ outcome: "error", error: { kind: "policy_node", cause: "policy node failed: HTTP 503 from node big-gpu" } });
    const refuses: PolicyClient = { generate: async () => Promise.reject(Object.assign(new Error("prompt has 2073 tokens; the context length is 1024"), { code: "context_length_exceeded" })) };
    expect(await episode(task([[item("call", 1, called)]]), refuses)).toMatchObject({ outcome: "error", error: { kind: "context", cause: "prompt does not fit the model's context: prompt has 2073 tokens; the context length is 1024" } });
    // A Tinker node answers a prompt that fills its context with an empty length stop: the episode never ran.
    const full: PolicyClient = { generate: async () => ({ text: "", promptTokens: new Array(1024).fill(1), tokens: [], logprobs: [], finishReason: "length" }) };
    expect(await episode(task([[item("call", 1, called)]]), full)).toMatchObject({
      outcome: "error",
      error: { kind: "context", cause: "prompt does not fit the model's context: the first act prompt has 1024 tokens and leaves no room to generate" },
    });
  });

  it("the policy's own parse error stays a failure", async () => {
    const garbled: PolicyClient = { generate: async () => fakeGeneration("p", "<tool_call>\n{not json\n</tool_call>") };
    const t = await episode(task([[item("call", 1, called)]]), garbled);
    expect(t.terminationReason).toMatch(/^act_parse_error:/);
    expect(t).toMatchObject({ outcome: "failure", success: false });
  });
});

const record = (r: Partial<TurnRecord>): TurnRecord => ({ index: 0, role: "act", userTurn: 0, microStep: 0, text: "", promptTokens: [], tokens: [], logprobs: [], promptTokenCount: 0, responseTokenCount: 0, valid: true, ...r });

describe("decideOutcome", () => {
  const base = { records: [] as TurnRecord[], judgements: [], numChecklistTurns: 0 };
  const score = (s: Partial<EpisodeScore>): EpisodeScore => ({ reward: 0, verdicts: [], ...s });

  it("an end-of-episode score succeeds at reward 1.0 by default, and its own verdict wins over the reward", () => {
    expect(decideOutcome({ ...base, terminationReason: "user_stop", score: score({ reward: 1 }) })).toEqual({ outcome: "success", success: true });
    expect(decideOutcome({ ...base, terminationReason: "user_stop", score: score({ reward: 0.999 }) })).toEqual({ outcome: "failure", success: false });
    expect(decideOutcome({ ...base, terminationReason: "user_stop", score: score({ reward: 1, success: false }) })).toEqual({ outcome: "failure", success: false });
    expect(decideOutcome({ ...base, terminationReason: "script_complete", score: score({ reward: 0, success: true }) })).toEqual({ outcome: "success", success: true });
    expect(decideOutcome({ ...base, terminationReason: "answered", score: score({ error: "the environment failed (START_FAILED)" }) })).toEqual({
      outcome: "error",
      success: false,
      error: { kind: "scoring", cause: "could not be scored: the environment failed (START_FAILED)" },
    });
  });

  it("names the failing part for each infrastructure termination", () => {
    const err = (terminationReason: string, records: TurnRecord[] = []) => episodeError(terminationReason, records, []);
    expect(err("environment_error:CRASHED", [record({ role: "environment", error: { code: "CRASHED", payload: "exit 3" } })])).toEqual({ kind: "environment", cause: "environment failed: CRASHED — exit 3" });
    expect(err("user_error", [record({ role: "user", error: { code: "USER_ERROR", payload: "HTTP 400" } })])).toEqual({ kind: "user_simulator", cause: "user simulator failed: HTTP 400" });
    expect(err("simulator_failed", [record({ role: "simulator", text: '{"error": "timeout after 120 s"}', error: { code: "SIMULATOR_FAILED" } })])).toEqual({ kind: "tool_simulator", cause: "tool simulator failed: timeout after 120 s" });
    expect(err("interaction_exception")).toEqual({ kind: "judge", cause: "judge failed: interaction_exception" });
    expect(err("empty_checklist")).toEqual({ kind: "task", cause: "task cannot be scored: the task has no checklist items to score" });
    for (const policyOwn of ["judge_required_failed", "act_parse_error:JSON_DECODE_ERROR", "tool_error:INVALID_ARGUMENTS", "LENGTH_EXCEEDED", "max_assistant_turns", "empty_agent_reply", "checklist_complete"]) {
      expect(err(policyOwn), policyOwn).toBeUndefined();
    }
  });

  it("checklist success needs a judged verdict for every checklist turn", () => {
    const j = (allPassed: boolean | undefined) => ({ userTurnIndex: 0, reward: 1, checklistScores: [1], stop: false, verdicts: [], judgeCalls: 0, judgeFailures: 0, allPassed });
    expect(checklistSuccess([j(true), j(true)], 2)).toBe(true);
    expect(checklistSuccess([j(true)], 2)).toBe(false);
    expect(checklistSuccess([j(true), j(undefined)], 2)).toBe(false);
    expect(checklistSuccess([], 0)).toBe(false);
  });
});

describe("training on episodes that errored", () => {
  it("leaves every infrastructure error out of the update, not only environment errors", async () => {
    const cfg = (() => {
      const r = parseRunConfig({
        kind: "train",
        data: { dataset: "builtin:shop", rolloutsPerInstance: 2 },
        reward: { judge: { node: "judge", model: "j" }, judgeRetries: 1 },
        sampling: { act: sampling, rehearse: sampling, evalAct: sampling, evalRehearse: sampling },
        rollout: { paradigm: "rehearse", maxAssistantTurns: 4, maxUserTurns: 1 },
      });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      return r.config;
    })();
    const judged = { ...task([[{ ...item("q", 1, called), check: undefined }]]), id: "judged" };
    const checked = { ...task([[item("call", 1, called)]]), id: "checked" };
    const garbage: ChatClient = { complete: async () => ({ text: "no verdict here" }) };
    const datums: number[] = [];
    const trainer: TrainerClient = {
      forwardBackward: async (d) => (datums.push(d.length), { metrics: {} }),
      optimStep: async () => ({ metrics: {} }),
      updateSampler: async () => {},
      saveWeightsForSampler: async (name) => ({ path: name }),
      saveState: async (name) => ({ path: name }),
      loadState: async () => {},
    };
    const res = await runTrainingStep({ instances: [judged, checked], config: cfg, policy, trainer, judge: garbage, sleep: async () => {}, stepIndex: 1 });
    const errored = res.trajectories.filter((t) => t.outcome === "error");
    expect(errored.map((t) => [t.instanceId, t.terminationReason, t.error?.kind])).toEqual([
      ["judged", "judge_failed", "judge"],
      ["judged", "judge_failed", "judge"],
    ]);
    // The judged episodes generated like the others, but none of their generations reaches the update.
    expect(errored.every((t) => t.turns.some((x) => x.role === "act") && t.turns.every((x) => x.advantage === undefined))).toBe(true);
    const healthy = res.trajectories.filter((t) => t.outcome !== "error");
    const rows = healthy.flatMap((t) => t.turns.filter((x) => (x.role === "act" || x.role === "rehearse") && x.advantage !== undefined));
    expect(datums).toEqual([rows.length]);
    expect(res.metrics).toMatchObject({ "episodes/errored": 2, "episodes/errored/judge": 2, "episode/avg@2": 1, "training/num_datums": rows.length });
  });
});

describe("step metrics", () => {
  it("Avg@k and pass@k count successes over the episodes that ran; the reference's won keeps its own keys", async () => {
    const cfg = config({ data: { dataset: "builtin:shop", rolloutsPerInstance: 2 }, trialsPerTask: 2 });
    const partial = task([[item("call", 0.5, called), item("reply", 0.5, saysNope)]]);
    const full = { ...task([[item("call", 0.5, called), item("reply", 0.5, saysDone)]]), id: "full" };
    const res = await runEvaluation({ instances: [partial, full], config: cfg, policy, stepIndex: 1 });
    expect(res.trajectories.map((t) => t.outcome)).toEqual(["failure", "failure", "success", "success"]);
    expect(res.metrics["val/avg@2"]).toBe(0.5);
    expect(res.metrics["val/pass@2"]).toBe(0.5);
    expect(res.metrics["val/won_avg@2"]).toBe(1);
    expect(res.metrics["val/won_pass@2"]).toBe(1);

    // One errored episode is left out of every score and counted.
    const errored: TrajectoryResult = { ...res.trajectories[0]!, reward: 0, won: false, outcome: "error", success: false, error: { kind: "user_simulator", cause: "user simulator failed: x" } };
    const m = rolloutMetrics([errored, res.trajectories[1]!, ...res.trajectories.slice(2)], 2, 100, "val");
    expect(m["val/avg@2"]).toBeCloseTo(2 / 3);
    expect(m["val/test_score"]).toBeUndefined();
    expect(m["val/test/test_score"]).toBeCloseTo((0.5 + 1 + 1) / 3);
  });

  it("an evaluation where more than the allowed share errored fails with the cause", async () => {
    const cfg = config({ rollout: { paradigm: "rehearse", maxEnvironmentErrorShare: 0.4 } });
    const user: ChatClient = { complete: async () => Promise.reject(new Error("prompt has 2073 tokens; the context length is 1024")) };
    const live: TaskInstance = { ...task([]), id: "live", messages: [], liveUser: { next: (c, messages) => c.complete({ messages, temperature: 0, topP: 1, maxTokens: 10 }).then((r) => ({ text: r.text })) }, scoreEpisode: () => ({ reward: 0, verdicts: [] }) };
    const ok = task([[item("call", 1, called)]]);
    await expect(runEvaluation({ instances: [live, ok], config: cfg, policy, userSimulator: user, stepIndex: 1 })).rejects.toMatchObject({
      code: "TOO_MANY_ERRORED_EPISODES",
      message: "evaluation at step 1: 1 of 2 episodes (50%) errored, above rollout.maxEnvironmentErrorShare = 0.4 (user simulator failed: 1); first: user simulator failed: prompt has 2073 tokens; the context length is 1024",
    });
    const tolerant = await runEvaluation({ instances: [live, ok], config: config({ rollout: { paradigm: "rehearse", maxEnvironmentErrorShare: 0.5 } }), policy, userSimulator: user, stepIndex: 1 });
    expect(tolerant.metrics).toMatchObject({ "episodes/total": 2, "episodes/errored": 1, "episodes/errored/user_simulator": 1, "val/avg@1": 1, "val/pass@1": 1 });
  });
});
