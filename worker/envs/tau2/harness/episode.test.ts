/**
 * Airline and telecom tasks through the ENGINE (live user + end-of-episode reward), in the three paradigms:
 * the gold agent and the gold user (test/doubles/tau2-gold.ts) play each task's gold trajectory — telecom's
 * user on its phone with tool calls — and the v0.2.0 reward is 1; evaluation runs the real tools, training
 * rehearses (shadow execution records the real responses) or asks an external simulator, and the reward
 * always replays the episode's calls, the user's included, on the real domain.
 */
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../../../contracts/run-config";
import { domainSource, domainTestData } from "../../../../test/fixtures/tau2-domains";
import { fakeGeneration } from "../../../../test/doubles/shop-oracle";
import { asHermesText, goldAgentReply, goldUserReply } from "../../../../test/doubles/tau2-gold";
import type { ChatClient, PolicyClient, TrainerClient } from "../../../engine/io";
import { runEvaluation, runTrainingStep } from "../../../engine/step";
import { trajectoryRows } from "../../../runner/persist";
import type { Tau2Task } from "../../../../lib/tau2/tasks";
import { tau2Instance } from "./live";
import { tau2EvalMetrics } from "./metrics";

const PREDICTION = '{"predicted": true}';

function goldPolicy(task: Tau2Task): PolicyClient {
  return {
    async generate(req) {
      if (req.role === "rehearse") return fakeGeneration("p", `\n<execution_result>\n${PREDICTION}\n</execution_result>`);
      return fakeGeneration("p", asHermesText(goldAgentReply(task, req.messages)));
    },
  };
}
const goldUser = (task: Tau2Task): ChatClient & { requests: number } => {
  const u = {
    requests: 0,
    async complete(req: { messages: import("../../../engine/io").ChatMessage[] }) {
      u.requests++;
      return goldUserReply(task, req.messages);
    },
  };
  return u;
};

function config(dataset: string, over: RunConfigInput = {}) {
  const r = parseRunConfig({ kind: "eval", ...over, data: { dataset, ...over.data }, rollout: { paradigm: "environment", userSimulator: { node: "u", model: "m" }, maxAssistantTurns: 40, maxMicroSteps: 200, ...over.rollout } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

const trainer: TrainerClient = {
  forwardBackward: async () => ({ metrics: {} }),
  optimStep: async () => ({ metrics: {} }),
  updateSampler: async () => {},
  saveWeightsForSampler: async (name) => ({ path: `tinker://${name}` }),
  saveState: async (name) => ({ path: name }),
  loadState: async () => {},
};

const telecomTask = () => domainTestData("telecom").tasks[0]!;

describe("airline and telecom episodes through the engine", () => {
  it("airline train tasks (every fourth; gold.test.ts replays them all): the gold trajectory earns reward 1 with the real tools", async () => {
    const source = domainSource("airline");
    for (const task of source.tasks.filter((_, i) => i % 4 === 0)) {
      const res = await runEvaluation({ instances: [tau2Instance(source, task)], config: config("tau2:airline"), policy: goldPolicy(task), userSimulator: goldUser(task), stepIndex: 1 });
      const [tr] = res.trajectories;
      expect(tr!.terminationReason, task.id).toBe("user_stop");
      expect(tr!.reward, `airline ${task.id}: ${JSON.stringify(tr!.judgements.at(-1)?.detail)}`).toBe(1);
    }
  });

  it("every telecom train task: agent and user (on its phone) play the gold trajectory; the env assertions hold", async () => {
    const source = domainSource("telecom");
    const trials = [];
    for (const task of source.tasks) {
      const res = await runEvaluation({ instances: [tau2Instance(source, task)], config: config("tau2:telecom"), policy: goldPolicy(task), userSimulator: goldUser(task), stepIndex: 1 });
      const [tr] = res.trajectories;
      expect(tr!.terminationReason, task.id).toBe("user_stop");
      expect(tr!.reward, `telecom ${task.id}: ${JSON.stringify(tr!.judgements.at(-1)?.detail)}`).toBe(1);
      const userCalls = (task.evaluation_criteria?.actions ?? []).filter((a) => a.requestor === "user").map((a) => a.name);
      expect(tr!.turns.filter((t) => t.role === "user_tool").map((t) => t.call?.name), task.id).toEqual(userCalls);
      trials.push({ instanceId: `tau2:telecom/${task.id}`, reward: tr!.reward, terminationReason: tr!.terminationReason });
    }
    expect(tau2EvalMetrics(trials)).toMatchObject({ "val/tau2/pass^1": 1, "val/tau2/telecom/avg": 1, "val/tau2/telecom/tasks": 74 });
  });

  it("a telecom trajectory persists the user's calls with their real results, and fails when the user skips its fix", async () => {
    const source = domainSource("telecom");
    const task = telecomTask();
    const res = await runEvaluation({ instances: [tau2Instance(source, task)], config: config("tau2:telecom"), policy: goldPolicy(task), userSimulator: goldUser(task), stepIndex: 1 });
    const rows = trajectoryRows("run-1", res, "eval");
    const userTool = rows.turns.find((t) => t.role === "user_tool")!;
    expect(userTool).toMatchObject({ toolCalls: { name: "toggle_data", arguments: "{}" }, realResponse: expect.stringMatching(/^Mobile Data is now ON\.\nStatus Bar: /) });
    expect(rows.verdicts.filter((v) => v.itemId.startsWith("env_assertion_")).map((v) => [v.passed, v.weight])).toEqual([[true, 1], [true, 1], [true, 1]]);
    // A user that never fixes its phone: the agent's refuel alone does not bring the data back.
    const lazy: ChatClient = { complete: async (req) => (req.messages.some((m) => m.role === "user" && m.content.includes("agent steps")) ? { text: "Thanks ###STOP###" } : { text: "Hi, my data does not work." }) };
    const failed = await runEvaluation({ instances: [tau2Instance(source, task)], config: config("tau2:telecom"), policy: goldPolicy(task), userSimulator: lazy, stepIndex: 1 });
    expect(failed.trajectories[0]).toMatchObject({ terminationReason: "user_stop", reward: 0 });
  });

  it("trains on telecom in the rehearse paradigm with shadow execution: the agent's calls are rehearsed, the reward replays them for real", async () => {
    const source = domainSource("telecom");
    const task = telecomTask();
    const cfg = config("tau2:telecom", { kind: "train", data: { rolloutsPerInstance: 2 }, rollout: { paradigm: "rehearse", shadowExecution: true } });
    const res = await runTrainingStep({ instances: [tau2Instance(source, task)], config: cfg, policy: goldPolicy(task), trainer, userSimulator: goldUser(task), stepIndex: 1, runId: "r" });
    for (const tr of res.trajectories) {
      expect(tr).toMatchObject({ terminationReason: "user_stop", reward: 1 });
      const rehearse = tr.turns.filter((x) => x.role === "rehearse");
      expect(rehearse.every((x) => x.rehearsed === PREDICTION && typeof x.real === "string")).toBe(true);
      expect(tr.turns.some((x) => x.role === "user_tool" && x.real)).toBe(true);
    }
  });

  it("trains on airline in the rehearse paradigm without shadow execution and in the simulator paradigm", async () => {
    const source = domainSource("airline");
    const task = domainTestData("airline").tasks.find((t) => (t.evaluation_criteria?.actions ?? []).some((a) => a.name === "cancel_reservation"))!;
    const rehearse = await runTrainingStep({
      instances: [tau2Instance(source, task)],
      config: config("tau2:airline", { kind: "train", data: { rolloutsPerInstance: 1 }, rollout: { paradigm: "rehearse", shadowExecution: false } }),
      policy: goldPolicy(task),
      trainer,
      userSimulator: goldUser(task),
      stepIndex: 1,
      runId: "r",
    });
    expect(rehearse.trajectories[0]).toMatchObject({ terminationReason: "user_stop", reward: 1 });
    expect(rehearse.trajectories[0]!.turns.filter((x) => x.role === "rehearse").every((x) => x.real === undefined)).toBe(true);
    const simulator: ChatClient = { complete: async () => ({ text: JSON.stringify({ execution_result: { simulated: true } }) }) };
    const simulated = await runTrainingStep({
      instances: [tau2Instance(source, task)],
      config: config("tau2:airline", { kind: "train", data: { rolloutsPerInstance: 1 }, rollout: { paradigm: "simulator", simulator: { node: "sim", model: "m" } } }),
      policy: goldPolicy(task),
      trainer,
      simulator,
      userSimulator: goldUser(task),
      stepIndex: 1,
    });
    expect(simulated.trajectories[0]).toMatchObject({ terminationReason: "user_stop", reward: 1 });
  });

  it("the fidelity probe predicts before each real airline call", async () => {
    const source = domainSource("airline");
    const task = domainTestData("airline").tasks.find((t) => (t.evaluation_criteria?.actions ?? []).length >= 2)!;
    const res = await runEvaluation({ instances: [tau2Instance(source, task)], config: config("tau2:airline", { fidelityProbe: true }), policy: goldPolicy(task), userSimulator: goldUser(task), stepIndex: 1 });
    const env = res.trajectories[0]!.turns.filter((x) => x.role === "environment");
    expect(env.length).toBe(task.evaluation_criteria!.actions!.length);
    expect(env.every((x) => x.rehearsed === PREDICTION && x.fidelity !== undefined && typeof x.real === "string")).toBe(true);
    expect(res.trajectories[0]!.reward).toBe(1);
  });
});
