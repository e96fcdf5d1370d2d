/**
 * tau2 retail tasks through the ENGINE (live user simulator + end-of-episode reward): evaluation with the
 * fidelity probe, training in the rehearse paradigm with shadow execution, and the persisted row shape.
 */
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../../../../contracts/run-config";
import { fakeGeneration } from "../../../../../test/doubles/shop-oracle";
import type { ChatMessage, GenerateRequest, PolicyClient, TrainerClient } from "../../../../engine/io";
import { createJudge, driverConfigFrom, judgeHookFor, runEvaluation, runTrainingStep, toTrajectory } from "../../../../engine/step";
import { expandJobs, runRollouts } from "../../../../engine/rollout";
import { trajectoryRows } from "../../../../runner/persist";
import { loadTau2RetailSource, tau2LiveInstance } from "./adapter";
import { contextFittingPolicy, fitMessagesToContext, TRUNCATION_MARKER } from "../../harness/fit-context";
import { perTaskResults, tau2EvalMetrics } from "../../harness/metrics";
import { GREETING } from "../../../../../lib/tau2/prompts";
import { ScriptedUser } from "../../../../../test/doubles/scripted-user";
import type { Tau2Task } from "../../../../../lib/tau2/tasks";

const source = loadTau2RetailSource();
const task = (id: string) => source.tasks.find((t) => t.id === id)!;

function config(over: RunConfigInput): ReturnType<typeof parseRunConfig> & { ok: true } {
  // tau2 configs must name a user simulator; the tests inject their own user, so any node name will do.
  const r = parseRunConfig({ data: { dataset: "tau2:retail" }, ...over, rollout: { userSimulator: { node: "user-sim", model: "m" }, ...over.rollout } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

// Written as json.dumps writes it, so the content that enters the conversation is the same text.
const PREDICTION = '{"predicted": true}';

/**
 * A policy double that replays a task's gold actions (one call per act message, counted from the
 * conversation so concurrent rollouts do not interfere), then states the communicate info; its
 * rehearse role always predicts the same object.
 */
function goldPolicy(t: Tau2Task, opts: { skipLastAction?: boolean } = {}): PolicyClient & { rehearsePrompts: ChatMessage[][] } {
  const actions = (t.evaluation_criteria?.actions ?? []).slice(0, opts.skipLastAction ? -1 : undefined);
  const rehearsePrompts: ChatMessage[][] = [];
  return {
    rehearsePrompts,
    async generate(req: GenerateRequest) {
      if (req.role === "rehearse") {
        rehearsePrompts.push(req.messages);
        return fakeGeneration("rehearse", `\n<execution_result>\n${PREDICTION}\n</execution_result>`);
      }
      const done = req.messages.filter((m) => m.role === "tool").length;
      const text =
        done < actions.length
          ? `\n<tool_call>\n${JSON.stringify({ name: actions[done].name, arguments: actions[done].arguments })}\n</tool_call>`
          : `All done. ${(t.evaluation_criteria?.communicate_info ?? []).join(" and ")}`;
      return fakeGeneration("act prompt", text);
    },
  };
}

const user = () => new ScriptedUser(["Hi, I need help with my order.", "Thanks, that is all. ###STOP###"], "###STOP###", "per-conversation");

describe("tau2 retail tasks in the engine", () => {
  it("evaluates with real tools, a live user and the fidelity probe, scoring the v0.2.0 reward", async () => {
    const t = task("0");
    const { config: cfg } = config({ kind: "eval", trialsPerTask: 2, fidelityProbe: true, rollout: { paradigm: "environment" } });
    const policy = goldPolicy(t);
    const sim = user();
    const res = await runEvaluation({ instances: [tau2LiveInstance(source, t)], config: cfg, policy, userSimulator: sim, stepIndex: 1, runId: "r" });

    expect(res.trajectories).toHaveLength(2);
    const n = t.evaluation_criteria!.actions!.length;
    for (const tr of res.trajectories) {
      expect(tr.terminationReason).toBe("user_stop");
      expect(tr.reward).toBe(1);
      expect(tr.won).toBe(true);
      expect(tr.turns.map((x) => x.role)).toEqual(["user", ...Array.from({ length: n }, () => ["act", "environment"]).flat(), "act", "user"]);
      const env = tr.turns.filter((x) => x.role === "environment");
      // Real responses come from the RetailEnv; the probe's prediction sits beside them with its agreement.
      expect(env.every((x) => typeof x.real === "string" && x.real.length > 0 && x.rehearsed === PREDICTION && x.fidelity !== undefined)).toBe(true);
      expect(tr.fidelity?.comparisons).toBe(n);
      expect(tr.judgements.at(-1)).toMatchObject({ reward: 1, detail: { taskId: "0", db: { match: true } } });
    }
    // The probe never saw the real result of the call it predicted.
    expect(policy.rehearsePrompts).toHaveLength(2 * n);
    // The user simulator sees the greeting first and never the tool traffic.
    const lastRequest = sim.requests.at(-1)!;
    expect(lastRequest[0].role).toBe("system");
    expect(lastRequest[1]).toEqual({ role: "user", content: GREETING });
    expect(lastRequest.every((m) => !m.content.includes("<tool_call>"))).toBe(true);

    expect(tau2EvalMetrics(res.trajectories)).toMatchObject({ "val/tau2/pass^1": 1, "val/tau2/pass^2": 1, "val/tau2/tasks": 1 });
    expect(perTaskResults(res.trajectories)).toEqual([{ taskId: "0", trials: 2, successes: 2, rewards: [1, 1], terminations: ["user_stop", "user_stop"], errored: 0 }]);

    // Persisted shape: user, act and environment turns with the real response, the probe and fidelity; verdicts.
    const rows = trajectoryRows("run-1", res, "eval");
    const envRows = rows.turns.filter((r) => r.role === "environment");
    expect(envRows).toHaveLength(2 * n);
    expect(envRows.every((r) => r.realResponse && r.rehearsedResponse === PREDICTION && r.fidelity)).toBe(true);
    expect(rows.turns.filter((r) => r.role === "user").map((r) => r.text)).toContain("Thanks, that is all. ###STOP###");
    expect(rows.verdicts.find((v) => v.itemId === "db")).toMatchObject({ passed: true, weight: 1 });
    expect(rows.trajectories.every((r) => r.outcome === "success" && r.instanceId === "tau2:retail/0")).toBe(true);
  });

  it("gives reward 0 for a wrong end state and for premature endings, with pass^k over mixed trials", async () => {
    const t = task("0");
    const { config: cfg } = config({ kind: "eval", rollout: { paradigm: "environment" } });
    const wrong = await runEvaluation({ instances: [tau2LiveInstance(source, t)], config: cfg, policy: goldPolicy(t, { skipLastAction: true }), userSimulator: user(), stepIndex: 1 });
    expect(wrong.trajectories[0]).toMatchObject({ terminationReason: "user_stop", reward: 0 });
    expect(wrong.trajectories[0].verdicts.find((v) => v.itemId === "db")?.passed).toBe(false);

    // A user simulator that stalls on every episode: the evaluation fails with the cause instead of scoring 0.
    await expect(runEvaluation({ instances: [tau2LiveInstance(source, t)], config: cfg, policy: goldPolicy(t), userSimulator: new ScriptedUser([" "]), stepIndex: 1 })).rejects.toMatchObject({
      code: "TOO_MANY_ERRORED_EPISODES",
      message: expect.stringContaining("every episode (1 of 1) errored (user simulator failed: 1); first: user simulator failed: the user simulator returned an empty message"),
    });
    const [job] = expandJobs([tau2LiveInstance(source, t)], 1, "g");
    const [r] = await runRollouts([job!], { policy: goldPolicy(t), userSimulator: new ScriptedUser([" "]) }, driverConfigFrom(cfg, "eval", {}), judgeHookFor(createJudge(cfg, undefined), 1));
    const stalled = toTrajectory(r!, "environment");
    expect(stalled).toMatchObject({ terminationReason: "user_stalled", reward: 0, outcome: "error", success: false });
    expect(stalled.judgements.at(-1)?.detail).toMatchObject({
      evaluated: false,
      note: "premature termination",
      termination: { reason: "user_stalled", code: "USER_STALLED", detail: "the user simulator returned an empty message" },
    });
    const rows = trajectoryRows("run-1", { kind: "eval", stepIndex: 1, trajectories: [stalled], metrics: {} }, "eval");
    expect(rows.turns).toEqual([expect.objectContaining({ role: "user", errorCode: "USER_STALLED" })]);
    expect(rows.trajectories[0]).toMatchObject({ outcome: "error", errorKind: "user_simulator", errorCause: "user simulator failed: the user simulator returned an empty message" });

    expect(
      tau2EvalMetrics([
        { instanceId: "tau2:retail/0", reward: 1, terminationReason: "user_stop" },
        { instanceId: "tau2:retail/0", reward: 0, terminationReason: "user_stop" },
        { instanceId: "tau2:retail/1", reward: 1, terminationReason: "user_stop" },
        { instanceId: "tau2:retail/1", reward: 1, terminationReason: "user_stop" },
      ]),
    ).toMatchObject({ "val/tau2/pass^1": 0.75, "val/tau2/pass^2": 0.5, "val/tau2/reward/mean": 0.75 });
    // Trials that errored are left out of pass^k (a task with none left is not a task that failed) and counted.
    const mixed = tau2EvalMetrics([
      { instanceId: "tau2:retail/0", reward: 1, terminationReason: "user_stop", outcome: "success" },
      { instanceId: "tau2:retail/0", reward: 0, terminationReason: "user_error", outcome: "error" },
      { instanceId: "tau2:retail/1", reward: 0, terminationReason: "user_error", outcome: "error" },
      { instanceId: "tau2:retail/2", reward: 0.5, terminationReason: "user_stop", outcome: "failure" },
    ]);
    expect(mixed).toMatchObject({ "val/tau2/pass^1": 0.5, "val/tau2/reward/mean": 0.75, "val/tau2/tasks": 2, "val/tau2/trials": 2, "val/tau2/errored": 2 });
    // And per domain, as the report's τ² columns read them.
    expect(mixed).toMatchObject({ "val/tau2/retail/avg": 0.5, "val/tau2/retail/tasks": 2, "val/tau2/retail/trials": 2, "val/tau2/retail/errored": 2 });
  });

  it("trains in the rehearse paradigm: shadow execution records real responses, the reward replays the calls for real", async () => {
    const t = task("0");
    const { config: cfg } = config({ kind: "train", data: { dataset: "tau2:retail", rolloutsPerInstance: 2 }, rollout: { paradigm: "rehearse", shadowExecution: true } });
    const data: number[] = [];
    const trainer: TrainerClient = {
      forwardBackward: async (d) => (data.push(d.length), { metrics: {} }),
      optimStep: async () => ({ metrics: {} }),
      updateSampler: async () => {},
      saveWeightsForSampler: async (name) => ({ path: `tinker://${name}` }),
      saveState: async (name) => ({ path: name }),
      loadState: async () => {},
    };
    const res = await runTrainingStep({ instances: [tau2LiveInstance(source, t)], config: cfg, policy: goldPolicy(t), trainer, userSimulator: user(), stepIndex: 1, runId: "r" });
    const n = t.evaluation_criteria!.actions!.length;
    for (const tr of res.trajectories) {
      expect(tr.terminationReason).toBe("user_stop");
      // The conversation saw rehearsed responses, but the reward is the real end state of the same calls.
      expect(tr.reward).toBe(1);
      const rehearse = tr.turns.filter((x) => x.role === "rehearse");
      expect(rehearse).toHaveLength(n);
      expect(rehearse.every((x) => x.rehearsed === PREDICTION && typeof x.real === "string" && x.fidelity)).toBe(true);
    }
    // Act and rehearse generations are training rows; user turns are not.
    expect(data).toEqual([2 * (n + 1 + n)]);
  });
});

describe("tau2 retail training in the simulator paradigm", () => {
  it("an external tool simulator answers the calls; the reward still replays them on the real DB", async () => {
    const t = task("0");
    const { config: cfg } = config({ kind: "train", data: { dataset: "tau2:retail", rolloutsPerInstance: 1 }, rollout: { paradigm: "simulator", simulator: { node: "sim", model: "m" } } });
    const simulated: string[] = [];
    const simulator = {
      async complete() {
        simulated.push("call");
        return { text: JSON.stringify({ execution_result: { simulated: true } }) };
      },
    };
    const trainer: TrainerClient = {
      forwardBackward: async () => ({ metrics: {} }),
      optimStep: async () => ({ metrics: {} }),
      updateSampler: async () => {},
      saveWeightsForSampler: async (name) => ({ path: name }),
      saveState: async (name) => ({ path: name }),
      loadState: async () => {},
    };
    const res = await runTrainingStep({ instances: [tau2LiveInstance(source, t)], config: cfg, policy: goldPolicy(t), trainer, simulator, userSimulator: user(), stepIndex: 1 });
    const [tr] = res.trajectories;
    const n = t.evaluation_criteria!.actions!.length;
    expect(simulated).toHaveLength(n);
    expect(tr.turns.filter((x) => x.role === "simulator").every((x) => x.rehearsed === '{"simulated": true}' && x.real === undefined)).toBe(true);
    expect(tr).toMatchObject({ terminationReason: "user_stop", reward: 1 });
  });
});

describe("fitting prompts into a small context", () => {
  const length = (messages: ChatMessage[]) => messages.reduce((s, m) => s + m.content.length + 2, 1);
  const sys = { role: "system" as const, content: "P".repeat(500) };

  it("passes prompts that fit untouched", () => {
    const messages = [sys, { role: "user" as const, content: "hi" }];
    expect(fitMessagesToContext(messages, length, 1000)).toBe(messages);
  });

  it("drops the oldest messages, keeps the head of the system message, and left-trims a huge last message", () => {
    const convo = [sys, ...Array.from({ length: 6 }, (_, i) => ({ role: "user" as const, content: `m${i}`.padEnd(40, ".") }))];
    const fitted = fitMessagesToContext(convo, length, 200);
    expect(length(fitted)).toBeLessThanOrEqual(200);
    expect(fitted[0].content.startsWith("PPP")).toBe(true);
    expect(fitted[0].content.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(fitted.at(-1)!.content.startsWith("m5")).toBe(true);

    const huge = fitMessagesToContext([sys, { role: "user", content: "x".repeat(300) + "END" }], length, 120);
    expect(length(huge)).toBeLessThanOrEqual(120);
    expect(huge.at(-1)!.content.endsWith("END")).toBe(true);
  });

  it("wraps a policy with a known context so every prompt leaves room for the response", async () => {
    const seen: number[] = [];
    const inner = {
      contextLength: 300,
      promptTokens: (m: ChatMessage[]) => Array.from({ length: length(m) }, () => 0),
      async generate(req: GenerateRequest) {
        seen.push(length(req.messages));
        return fakeGeneration("", "ok");
      },
    };
    await contextFittingPolicy(inner).generate({ role: "act", messages: [sys, { role: "user", content: "hello" }], sampling: { temperature: 1, topP: 1, maxTokens: 100 } });
    expect(seen[0]).toBeLessThanOrEqual(200);
  });
});
