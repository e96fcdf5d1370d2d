/**
 * The vitabench:<domain> environment through the engine's evaluation (runEvaluation), with scripted doubles for the
 * policy, the user simulator and the judge (test/doubles/vita-scripts.ts): the episode as upstream runs it (prompts,
 * greeting, roles flipped for the user, real tool texts, stop tokens), the sliding-window judge's verdicts on the
 * trajectory, upstream's metrics, and the endings it scores 0 or cannot score.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../../contracts/run-config";
import { parseVitaDataset } from "../../../lib/vitabench/datasets";
import { fakeGeneration } from "../../../test/doubles/shop-oracle";
import { isJudgeRequest, scriptedVitaJudge, scriptedVitaUser } from "../../../test/doubles/vita-scripts";
import type { GenerateRequest, PolicyClient } from "../../engine/io";
import { runEvaluation } from "../../engine/step";
import { environmentKindOf } from "../index";
import { retryingInvalidReplies, vitaEnvironment, vitaEvalMetrics } from "./environment";
import { FixedClock } from "./registry";
import { dataDir as sharedDataDir } from "../../../lib/tau2/tasks";

const dataDir = sharedDataDir();
const shared = existsSync(`${dataDir}/vitabench/delivery/tasks_en.json`);
const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/vitabench/${name}`, import.meta.url), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

const TASK = "10711001";
const base = (over: Partial<RunConfigInput> = {}): RunConfigInput => ({
  kind: "eval",
  policy: { node: "p", model: "m" },
  data: { dataset: "vitabench:delivery/en", instanceIds: [TASK] },
  trialsPerTask: 1,
  rollout: { paradigm: "environment", userSimulator: { node: "u", model: "m" }, maxAssistantTurns: 300, maxUserTurns: 300, maxMicroSteps: 2000, promptBudgetTokens: 1_000_000 },
  reward: { judge: { node: "j", model: "m" }, judgeRetries: 1 },
  ...over,
});
function config(over: Partial<RunConfigInput> = {}) {
  const parsed = parseRunConfig(base(over));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
}

/** The agent: searches for the store the user names, then answers; `final` ends its last turn. */
function agent(final = "Your order is placed. Anything else?"): PolicyClient & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    async generate(req) {
      requests.push(req);
      const last = req.messages[req.messages.length - 1]!;
      const text =
        last.role === "tool"
          ? `<think>\nThe search answered.\n</think>\n\n${final}`
          : req.messages.filter((m) => m.role === "tool").length === 0
            ? 'Let me look.\n<tool_call>\n{"name": "delivery_store_search_recommand", "arguments": {"keywords": ["Jint"]}}\n</tool_call>\n<tool_call>\n{"name": "delivery_store_search_recommand", "arguments": {"keywords": [1]}}\n</tool_call>'
            : "Anything else?";
      return fakeGeneration(JSON.stringify(req.messages), text);
    },
  };
}

function env(over: Partial<RunConfigInput> = {}) {
  const c = config(over);
  const parsed = parseVitaDataset(c.data.dataset);
  if (!parsed.ok) throw new Error(parsed.message);
  return { c, env: vitaEnvironment(c, parsed.dataset, () => {}, { clock: () => new FixedClock("2025-01-01 00:00:00") }) };
}

describe.skipIf(!shared)("vitabench environment", () => {
  it("runs the episode as upstream: agent prompt with the task's time, greeting and flipped roles for the user, real tool texts, the judge over the trajectory", async () => {
    const { c, env: e } = env();
    const [instance] = e.evalSet();
    const goldenPrompt = fixture("user-prompt.golden.jsonl").find((g) => g.case === `delivery-en-${TASK}`);
    expect(instance!.id).toBe(`vitabench:delivery/en/${TASK}`);
    expect(instance!.messages).toEqual([{ role: "system", content: goldenPrompt.agent_system }]);
    expect(instance!.tools.map((t) => t.function.name)).toHaveLength(20);

    const user = scriptedVitaUser(["I'd like rice noodles from Jintugo, please.", "No, that is all. ###STOP###"]);
    const judge = scriptedVitaJudge();
    const policy = agent();
    const result = await runEvaluation({ instances: e.evalSet(), config: c, policy: e.samplingPolicy!({ protocol: "chat", chat: judge }, policy), judge, userSimulator: user, stepIndex: 1 });
    const [t] = result.trajectories;
    expect(t!.terminationReason).toBe("user_stop");
    // The user simulator: its persona prompt, the greeting as "user", then the agent's text (not its calls or their results).
    expect(user.requests[0]).toEqual([
      { role: "system", content: goldenPrompt.user_system },
      { role: "user", content: "Hello, how can I help you?" },
    ]);
    expect(user.requests[1]!.map((m) => [m.role, m.content])).toEqual([
      ["system", goldenPrompt.user_system],
      ["user", "Hello, how can I help you?"],
      ["assistant", "I'd like rice noodles from Jintugo, please."],
      ["user", "Your order is placed. Anything else?"],
    ]);
    // The agent never saw the greeting; the real tools answered with upstream's texts and error flag.
    expect(policy.requests[0]!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const golden = fixture("calls.golden.jsonl").filter((g) => g.case === "delivery-en-0");
    const real = t!.turns.filter((x) => x.role === "environment");
    expect(real.map((x) => x.text)).toEqual([golden[2].content, golden[4].content]);
    expect(golden[4].error).toBe(true);
    // The judge read the greeting, the calls as name(k=repr(v)) and the tool texts.
    const judgeUser = judge.requests[0]!.messages[1]!.content;
    expect(judgeUser).toContain("[1] assistant: Hello, how can I help you?");
    expect(judgeUser).toContain("[3] assistant: Let me look. delivery_store_search_recommand(keywords=['Jint']).delivery_store_search_recommand(keywords=[1])");
    expect(judgeUser).toContain(`[4] tool: ${golden[2].content.slice(0, 40)}`);
    expect(judgeUser).toContain("[6] assistant: Your order is placed. Anything else?");
    expect(judge.requests[0]!.temperature).toBe(0);
    // Every rubric met: success, reward 1; each verdict with the judge's justification and its window.
    expect(t!.outcome).toBe("success");
    expect(t!.reward).toBe(1);
    expect(t!.verdicts.length).toBeGreaterThan(3);
    for (const v of t!.verdicts) expect(v).toMatchObject({ source: "judge", passed: true, analysis: { justification: "done (window 1)", window: "1 of 1 (messages 1–7)" } });
    // Placed on the agent's last step of the window.
    expect(t!.verdicts[0]).toMatchObject({ userTurn: 0, step: 1 });
    const metrics = vitaEvalMetrics(result.trajectories);
    expect(metrics).toMatchObject({ "val/vitabench/avg_reward": 1, "val/vitabench/avg@1": 1, "val/vitabench/pass@1": 1, "val/vitabench/pass^1": 1, "val/vitabench/avg_partial": 1, "val/vitabench/tasks": 1, "val/vitabench/trials": 1 });
  });

  it("a failing rubric fails the task; partial score, pass^k and the per-task line name it", async () => {
    const { c, env: e } = env({ trialsPerTask: 2 });
    const judge = scriptedVitaJudge({ unmet: ["rubric_1"] });
    const result = await runEvaluation({ instances: e.evalSet(), config: c, policy: agent(), judge, userSimulator: scriptedVitaUser(["Jintugo noodles please."]), stepIndex: 1 });
    expect(result.trajectories.map((t) => [t.outcome, t.reward])).toEqual([["failure", 0], ["failure", 0]]);
    const failed = result.trajectories[0]!.verdicts.find((v) => v.itemId === "rubric_1")!;
    expect(failed).toMatchObject({ passed: false, analysis: { justification: "not done (window 1)" } });
    const m = vitaEvalMetrics(result.trajectories);
    expect(m["val/vitabench/pass^2"]).toBe(0);
    expect(m["val/vitabench/avg_partial"]).toBeGreaterThan(0.5);
    const report = e.evaluationReport!({ ...result, metrics: { ...result.metrics, ...m } });
    expect(report.headline).toContain("vitabench:delivery/en: avg@2 0.000, pass@2 0.000, pass^2 0.000");
    expect(report.lines[0]).toMatch(new RegExp(`^task ${TASK}: 0/2 passed, failing rubrics: rubric_1 "`));
  });

  it("the agent's ###STOP### ends the episode (judged); 3 empty replies end it as invalid_agent_message (0, no judge)", async () => {
    const { c, env: e } = env();
    const judge = scriptedVitaJudge();
    const stopped = await runEvaluation({ instances: e.evalSet(), config: c, policy: agent("Done, goodbye. ###STOP###"), judge, userSimulator: scriptedVitaUser(["Jintugo noodles please."]), stepIndex: 1 });
    expect(stopped.trajectories[0]).toMatchObject({ terminationReason: "agent_stop", outcome: "success" });

    let calls = 0;
    const blank: PolicyClient = { generate: async () => (calls++, fakeGeneration("p", "<think>\nhmm\n</think>\n\n")) };
    const judged = judge.requests.length;
    const invalid = await runEvaluation({ instances: e.evalSet(), config: c, policy: e.samplingPolicy!({ protocol: "chat", chat: judge }, blank), judge, userSimulator: scriptedVitaUser(["hi"]), stepIndex: 1 });
    expect(calls).toBe(3);
    expect(invalid.trajectories[0]).toMatchObject({ terminationReason: "empty_agent_reply", outcome: "failure", reward: 0 });
    expect((invalid.trajectories[0]!.judgements.at(-1)!.detail as { upstreamTermination: string }).upstreamTermination).toBe("invalid_agent_message");
    expect(judge.requests.length).toBe(judged);
  });

  it("a judge reply json_repair cannot read is a judge error with the raw reply kept, never a silent 0", async () => {
    const { c, env: e } = env();
    const judge = scriptedVitaJudge({ replies: { 1: "I cannot evaluate this conversation." } });
    const result = await runEvaluation({ instances: e.evalSet(), config: { ...c, rollout: { ...c.rollout, maxEnvironmentErrorShare: 1 } }, policy: agent(), judge, userSimulator: scriptedVitaUser(["Jintugo noodles please."]), stepIndex: 1 }).catch((err: Error) => err);
    // The only episode errored: the step fails with the cause (the run would fail with it).
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toContain("judge failed: JSONDecodeError: judge reply of window 1: json_repair finds no JSON in the reply — reply: I cannot evaluate this conversation.");
    // A malformed but repairable reply scores as upstream reads it.
    const repaired = scriptedVitaJudge({ replies: { 1: "[{'rubric_idx': 'rubric_0', 'justification': 'yes', 'meetExpectation': True}," } });
    const r = await runEvaluation({ instances: e.evalSet(), config: c, policy: agent(), judge: repaired, userSimulator: scriptedVitaUser(["Jintugo noodles please."]), stepIndex: 1 });
    expect(r.trajectories[0]).toMatchObject({ outcome: "failure" });
    expect(r.trajectories[0]!.verdicts.map((v) => v.passed)[0]).toBe(true);
    expect(r.trajectories[0]!.verdicts.slice(1).every((v) => !v.passed && v.step === -1)).toBe(true);
  });

  it("without a judge, or with a judge that fails, the episode is an error of kind judge", async () => {
    const { c, env: e } = env();
    const withoutJudge = await runEvaluation({ instances: e.evalSet(), config: { ...c, rollout: { ...c.rollout, maxEnvironmentErrorShare: 1 } }, policy: agent(), userSimulator: scriptedVitaUser(["hi ###STOP###"]), stepIndex: 1 }).catch((err: Error) => err.message);
    expect(withoutJudge).toContain("judge failed: VitaBench needs a judge");
    const down = { complete: async () => Promise.reject(new Error("HTTP 503")) };
    const failing = await runEvaluation({ instances: e.evalSet(), config: { ...c, rollout: { ...c.rollout, maxEnvironmentErrorShare: 1 } }, policy: agent(), judge: down, userSimulator: scriptedVitaUser(["hi ###STOP###"]), stepIndex: 1 }).catch((err: Error) => err.message);
    expect(failing).toContain("judge failed: the judge call failed: HTTP 503");
  });

  it("refuses what it cannot run: an unknown domain or language, a missing task file (naming it and where), unknown task ids", async () => {
    const bad = (dataset: string) => parseRunConfig(base({ data: { dataset } }));
    expect(bad("vitabench:flights")).toMatchObject({ ok: false, errors: [{ path: "data.dataset", message: expect.stringContaining('unknown VitaBench domain "flights"') }] });
    expect(bad("vitabench:delivery/fr")).toMatchObject({ ok: false, errors: [{ path: "data.dataset", message: expect.stringContaining('unknown VitaBench language "fr"') }] });
    expect(parseRunConfig({ ...base(), rollout: { paradigm: "environment" }, reward: {} })).toMatchObject({
      ok: false,
      errors: [{ path: "rollout.userSimulator" }, { path: "reward.judge" }],
    });
    const ota = config({ data: { dataset: "vitabench:ota/en" } });
    await expect(environmentKindOf("vitabench:ota/en").open({ config: ota, prisma: null as never, note: () => {}, signal: new AbortController().signal })).rejects.toThrow(
      `VitaBench ota (en) needs ota/tasks_en.json: supply upstream's data/vita/domains/ota/tasks_en.json as ${dataDir}/vitabench/ota/tasks_en.json`,
    );
    expect(() => env({ data: { dataset: "vitabench:delivery/en", instanceIds: ["nope"] } })).toThrow('data.instanceIds: no task "nope" in');
  });

  it("retries an empty agent reply as upstream (3 attempts in all) and passes a real one through", async () => {
    const texts = ["", "  ", "Hello!"];
    let i = 0;
    const p = retryingInvalidReplies({ generate: async () => fakeGeneration("p", texts[i++]!) });
    expect((await p.generate({ role: "act", messages: [], sampling: { temperature: 0, topP: 1, maxTokens: 1 } })).text).toBe("Hello!");
    expect(isJudgeRequest([{ role: "system", content: "" }, { role: "user", content: "<current_rubrics>" }])).toBe(true);
  });
});

describe("vitabench task files", () => {
  it("names the file, the JSON path and the task of a malformed task", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { loadVitaTasks } = await import("./data");
    const dir = mkdtempSync(join(tmpdir(), "vita-"));
    const file = join(dir, "tasks.json");
    const task = { id: "t1", domain: "delivery", environment: {}, user_scenario: { user_profile: { age: 30 } }, instructions: "x" };
    writeFileSync(file, JSON.stringify([task]));
    expect(() => loadVitaTasks(file)).toThrow(`${file}: $[0].user_scenario.user_profile.age (task "t1"): `);
    const notJson = join(dir, "broken.json");
    writeFileSync(notJson, "[{");
    expect(() => loadVitaTasks(notJson)).toThrow(`${notJson}: not JSON`);
  });
});
