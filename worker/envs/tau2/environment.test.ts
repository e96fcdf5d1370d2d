import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../../contracts/run-config";
import type { ChatClient, GenerateRequest } from "../../engine/io";
import type { StepResult } from "../../engine/step";
import type { ContextAwarePolicy } from "../environment";
import { tau2RetailEnvironment } from "./environment";

function config(over: RunConfigInput = {}) {
  const parsed = parseRunConfig({ kind: "train", ...over, data: { dataset: "tau2:retail", instancesPerStep: 3, seed: 3, ...over.data }, rollout: { userSimulator: { node: "u", model: "m" }, ...over.rollout } });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
}

describe("the tau2 retail environment", () => {
  it("draws exactly the tasks earlier versions drew for the same (seed, step), so resumed runs replay", () => {
    const notes: string[] = [];
    const env = tau2RetailEnvironment(config(), (m) => notes.push(m));
    expect(env.forStep(1).map((i) => i.id)).toEqual(["tau2:retail/25", "tau2:retail/28", "tau2:retail/110"]);
    expect(env.forStep(2).map((i) => i.id)).toEqual(["tau2:retail/92", "tau2:retail/20", "tau2:retail/46"]);
    expect(env.forStep(2).map((i) => i.id)).toEqual(tau2RetailEnvironment(config()).forStep(2).map((i) => i.id));
    // The shipped data has no test split: evaluation takes a fixed sample of the training split, noted once.
    expect(env.evalSet().map((i) => i.id)).toEqual(["tau2:retail/54", "tau2:retail/31", "tau2:retail/112"]);
    expect(notes).toEqual([expect.stringMatching(/no test split/)]);
  });

  it("cycles through named tasks, evaluates every one of them, and rejects unknown ids", () => {
    const env = tau2RetailEnvironment(config({ data: { instanceIds: ["0", "tau2:retail/1"], instancesPerStep: 3 } }));
    expect(env.forStep(1).map((i) => i.id)).toEqual(["tau2:retail/0", "tau2:retail/1", "tau2:retail/0"]);
    expect(env.forStep(2).map((i) => i.id)).toEqual(["tau2:retail/1", "tau2:retail/0", "tau2:retail/1"]);
    expect(env.evalSet().map((i) => i.id)).toEqual(["tau2:retail/0", "tau2:retail/1"]);
    expect(() => tau2RetailEnvironment(config({ data: { instanceIds: ["nope"] } }))).toThrow(/no task "nope" in the tau2 retail train split/);
  });

  it("carries the dataset's extras: a required user simulator, fitted prompts, the real tools for evaluation, pass^k", async () => {
    const env = tau2RetailEnvironment(config({ kind: "eval" }));
    expect(env.userSimulator?.missing).toMatch(/set rollout.userSimulator/);
    expect(env.evaluationParadigm).toEqual({ paradigm: "environment", why: expect.any(String) });

    // A Tinker-compatible policy gets prompts fitted to its context; a chat-only node keeps the standard adapter.
    const seen: GenerateRequest[] = [];
    const small: ContextAwarePolicy = {
      contextLength: 200,
      promptTokens: (messages) => Array.from({ length: messages.reduce((n, m) => n + m.content.length, 0) }, () => 0),
      async generate(req) {
        seen.push(req);
        return { text: "ok", promptTokens: [], tokens: [], logprobs: [], finishReason: "stop" };
      },
    };
    const [inst] = env.evalSet();
    const req: GenerateRequest = { role: "act", messages: [...inst!.messages, { role: "user", content: "hi" }], tools: inst!.tools, sampling: { temperature: 0, topP: 1, maxTokens: 50 } };
    await env.samplingPolicy!({ protocol: "tinker", policy: small }, small).generate(req);
    expect(seen[0]!.messages.reduce((n, m) => n + m.content.length, 0)).toBeLessThanOrEqual(150);
    const chat: ChatClient = { complete: async () => ({ text: "ok" }) };
    const standard = { generate: small.generate };
    expect(env.samplingPolicy!({ protocol: "chat", chat }, standard)).toBe(standard);

    const trajectories = [
      { instanceId: "tau2:retail/0", reward: 1, terminationReason: "user_stop" },
      { instanceId: "tau2:retail/0", reward: 0, terminationReason: "user_stalled" },
    ] as StepResult["trajectories"];
    const result = { kind: "eval", stepIndex: 1, trajectories, metrics: {} } as StepResult;
    Object.assign(result.metrics, env.evaluationMetrics!(result));
    expect(result.metrics).toMatchObject({ "val/tau2/pass^1": 0.5, "val/tau2/pass^2": 0, "val/tau2/tasks": 1 });
    expect(env.evaluationReport!(result)).toEqual({ headline: "pass^1 0.500, pass^2 0.000", lines: ["task 0: 1/2 passed (user_stop, user_stalled)"] });
  });
});
