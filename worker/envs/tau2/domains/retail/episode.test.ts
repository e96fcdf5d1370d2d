import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfig, type RunConfigInput } from "../../../../../contracts/run-config";
import { fakeGeneration } from "../../../../../test/doubles/shop-oracle";
import type { ChatClient, ChatMessage, GenerateRequest, PolicyClient } from "../../../../engine/io";
import { createJudge, driverConfigFrom, judgeHookFor, runEvaluation, toTrajectory } from "../../../../engine/step";
import { expandJobs, runRollouts } from "../../../../engine/rollout";
import { StepFailedError } from "../../../../engine/health";
import { replaySnapshot } from "../../../../engine/reward";
import { loadTau2RetailSource, replayGoldActions, tau2LiveInstance, tau2RetailInstance, tau2TaskInstance } from "./adapter";
import { GREETING, renderScenario } from "../../../../../lib/tau2/prompts";
import { actionChecks, communicateChecks } from "../../harness/evaluator";
import { passHatK } from "../../harness/metrics";
import { ScriptedUser } from "../../../../../test/doubles/scripted-user";
import type { Tau2Task } from "../../../../../lib/tau2/tasks";
import { retailTestData } from "../../../../../test/fixtures/tau2-retail";

const { db, tasks, files } = retailTestData();
const policyText = readFileSync(files.policy, "utf8");
const userGuidelines = readFileSync(files.userGuidelines, "utf8");
const task = (id: string) => tasks.find((t) => t.id === id)!;

function evalConfig(over: RunConfigInput = {}): RunConfig {
  // The tests pass their own user simulator, so the configured one is never called.
  const r = parseRunConfig({ kind: "eval", data: { dataset: "tau2:retail" }, ...over, rollout: { paradigm: "environment", userSimulator: { node: "user-sim", model: "m" }, ...over.rollout } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

/** An act-role policy double: `reply` writes the next act output from the conversation it is shown (rehearse gets `rehearse`). */
function scriptedPolicy(reply: (messages: ChatMessage[]) => string, rehearse = () => '\n<execution_result>\n{"ok":true}\n</execution_result>'): PolicyClient & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    async generate(req) {
      requests.push(req);
      return fakeGeneration("prompt", req.role === "act" ? reply(req.messages) : rehearse());
    },
  };
}

const callText = (name: string, args: unknown) => `\n<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** Replays the gold actions one call per act message (counted from the conversation), then says `closing`. */
function goldPolicy(t: Tau2Task, closing = `All done. ${(t.evaluation_criteria?.communicate_info ?? []).join(" and ")}`) {
  const actions = t.evaluation_criteria?.actions ?? [];
  return scriptedPolicy((messages) => {
    const done = messages.filter((m) => m.role === "tool").length;
    return done < actions.length ? callText(actions[done].name, actions[done].arguments) : closing;
  });
}

const stopAfter = (first: string) => new ScriptedUser([first, "Thanks, that is all. ###STOP###"], "###STOP###", "per-conversation");

/** One episode through the product's loop: the engine's rollout over a live-user tau2 instance. */
async function episode(t: Tau2Task, policy: PolicyClient, userSimulator: ChatClient, over: RunConfigInput = {}) {
  const config = evalConfig(over);
  try {
    const result = await runEvaluation({ instances: [tau2LiveInstance(source, t)], config, policy, userSimulator, stepIndex: 1 });
    return result.trajectories[0]!;
  } catch (e) {
    // A lone episode that errored fails its evaluation (every episode errored): look at the episode itself.
    if (!(e instanceof StepFailedError)) throw e;
    const [job] = expandJobs([tau2LiveInstance(source, t)], 1, "g");
    const [r] = await runRollouts([job!], { policy, userSimulator }, driverConfigFrom(config, "eval", {}), judgeHookFor(createJudge(config, undefined), config.reward.maxChecklists));
    return toTrajectory(r!, "environment");
  }
}

const source = { db, tasks, policy: policyText, userGuidelines };

describe("a tau2 episode (engine rollout over a live-user instance)", () => {
  it("scores 1 for every training task when the agent reaches the gold end state and says the info", async () => {
    for (const t of tasks) {
      const tr = await episode(t, goldPolicy(t), stopAfter("Hi, I need help with an order."), { rollout: { maxAssistantTurns: 40, maxMicroSteps: 200 } });
      expect(tr.terminationReason, t.id).toBe("user_stop");
      expect(tr.reward, `task ${t.id}: ${JSON.stringify(tr.judgements.at(-1)?.detail)}`).toBe(1);
    }
  });

  it("scores 0 when the end state differs or the info is not communicated", async () => {
    const silent = scriptedPolicy(() => "I cannot help.");
    const t0 = await episode(task("0"), silent, stopAfter("Exchange please."));
    expect(t0.reward).toBe(0);
    expect(t0.judgements.at(-1)?.detail).toMatchObject({ reward: 0, evaluated: true, db: { match: false }, communicate: { reward: 1 } });
    // task 24 has no gold writes: talking changes nothing, but "polyester"/"cotton" must be said
    const t24 = await episode(task("24"), silent, stopAfter("Question."));
    expect(t24.judgements.at(-1)?.detail).toMatchObject({ reward: 0, db: { match: true }, communicate: { reward: 0 } });
    const said = await episode(task("24"), scriptedPolicy(() => "It is Polyester, not COTTON."), stopAfter("Q"));
    expect(said.reward).toBe(1);
  });

  it("ends at the step limit with reward 0", async () => {
    const t = task("0");
    const limited = await episode(t, goldPolicy(t), stopAfter("hi"), { rollout: { maxMicroSteps: 4 } });
    expect(limited.terminationReason).toBe("max_micro_steps");
    expect(limited.reward).toBe(0);
    expect(limited.judgements.at(-1)?.detail).toMatchObject({ reward: 0, evaluated: false });
  });

  it("records transfer, stalled, garbage and failing simulators, and blank agent replies", async () => {
    const talk = scriptedPolicy(() => "ok");
    const t = task("57");
    const user = (lines: string[]) => new ScriptedUser(lines, "###STOP###", "per-conversation");
    expect((await episode(t, talk, user(["hi", "Thanks ###TRANSFER###"]))).terminationReason).toBe("transfer");
    // A user simulator that fails is the infrastructure's error, never the policy's failure.
    expect(await episode(t, talk, user(["hi", "   "]))).toMatchObject({ terminationReason: "user_stalled", outcome: "error", error: { kind: "user_simulator", cause: "user simulator failed: the user simulator returned an empty message" } });
    expect(await episode(t, talk, user(["hi", "again", "again", "again"]))).toMatchObject({ terminationReason: "user_stalled", outcome: "error" });
    expect(await episode(t, talk, user(["x".repeat(9000)]))).toMatchObject({ terminationReason: "user_garbage", outcome: "error" });
    const failing: ChatClient = { complete: async () => { throw new Error("prompt has 2073 tokens; the context length is 1024"); } };
    const failed = await episode(t, talk, failing);
    expect(failed).toMatchObject({ terminationReason: "user_error", outcome: "error", success: false, error: { kind: "user_simulator", cause: "user simulator failed: prompt has 2073 tokens; the context length is 1024" } });
    expect(JSON.stringify(failed.judgements.at(-1)?.detail)).toContain("prompt has 2073 tokens");
    const blank = await episode(t, scriptedPolicy(() => " "), user(["hi"]));
    expect(blank).toMatchObject({ terminationReason: "empty_agent_reply", outcome: "failure", reward: 0 });
  });

  it("shows the user simulator the guidelines, the scenario and only text, with roles flipped", async () => {
    const t = task("0");
    expect(renderScenario(t)).toMatch(/^Instructions:\n\tDomain: retail\n\tReason for call:\n\t\tYou received your order #W2378156.*\n\tKnown info:\n\t\tYou are Yusuf Rossi in zip code 19122.\n\tUnknown info:\n\t\tYou do not remember your email address.\n\tTask instructions:\n\t\tYou are detail-oriented /);
    const user = stopAfter("I want an exchange.");
    await episode(t, goldPolicy(t), user);
    const [first, second] = user.requests;
    expect(first[0].content).toBe(`${userGuidelines}\n\n<scenario>\n${renderScenario(t)}\n</scenario>`);
    expect(first.slice(1)).toEqual([{ role: "user", content: GREETING }]);
    expect(second.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(second.every((m) => m.role !== "tool" && !m.tool_calls)).toBe(true);
  });

  it("the fidelity probe predicts before the real call and agreement is measured", async () => {
    const t = task("0");
    const gold = replayGoldActions(t, db).results;
    const policy = goldPolicy(t);
    // Call 1 (the order) predicted partly, call 2 exactly, call 3 as plain text (not JSON: the probe records the error).
    const predictions = new Map([[1, '{"order_id": "#W2378156", "status": "pending"}'], [2, gold[2].content], [3, "just text"]]);
    const probeSaw: number[] = [];
    const probing: PolicyClient = {
      async generate(req) {
        if (req.role === "act") return policy.generate(req);
        const seen = req.messages.map((m) => m.content).join("\n");
        probeSaw.push(gold.filter((g) => g.content.length > 40 && seen.includes(g.content)).length);
        const call = probeSaw.length - 1;
        return fakeGeneration("probe", `\n<execution_result>\n${predictions.get(call) ?? '{"unknown": true}'}\n</execution_result>`);
      },
    };
    const tr = await episode(t, probing, stopAfter("hi"), { fidelityProbe: true });
    const env = tr.turns.filter((x) => x.role === "environment");
    expect(env.map((x) => x.real)).toEqual(gold.map((g) => g.content));
    // Each probe ran before its call: it saw the earlier calls' results, never its own (all but the first are long enough to find).
    expect(probeSaw).toEqual([0, 0, 1, 2, 3]);
    expect(env[2].fidelity).toMatchObject({ exact: true, score: 1 });
    expect(env[1].fidelity!.exact).toBe(false);
    expect(env[1].fidelity!.score).toBeGreaterThan(0);
    expect(env[1].fidelity!.score).toBeLessThan(0.2);
    expect(env[3].rehearsed).toContain("SIMULATOR_JSON_DECODE_ERROR");
    expect(tr.fidelity?.comparisons).toBe(gold.length);
    expect(tr.reward).toBe(1);
  });

  it("drives a PolicyClient through Hermes-style tool calls", async () => {
    const replies = [`Let me look.${callText("find_user_id_by_email", { email: "yusuf.rossi7301@example.com" })}`, "Your user id is yusuf_rossi_9620."];
    const policy = scriptedPolicy(() => replies.shift() ?? "Bye.");
    const tr = await episode(task("57"), policy, stopAfter("Who am I?"));
    const acts = policy.requests.filter((r) => r.role === "act");
    expect(acts[0].tools).toHaveLength(15);
    expect(acts[0].messages[0].content.startsWith("<instructions>\n")).toBe(true);
    expect(acts[0].messages[0].content.endsWith(`<policy>\n${policyText}\n</policy>`)).toBe(true);
    expect(acts[1].messages.at(-1)).toMatchObject({ role: "tool", content: "yusuf_rossi_9620" });
    expect(tr.turns.find((x) => x.role === "environment")).toMatchObject({ real: "yusuf_rossi_9620" });
    const bad = await episode(task("57"), scriptedPolicy(() => "hello\n<tool_call>\n{bad json}\n</tool_call>"), stopAfter("hi"));
    expect(bad.terminationReason).toMatch(/^act_parse_error:/);
    expect(bad.reward).toBe(0);
  });
});

describe("scoring rules", () => {
  it("communicate: commas removed from the message only, case-insensitive", () => {
    const checks = communicateChecks(["8276.23", "180.1", "8276.2x"], ["Total $8,276.23", "refund 180.10"]);
    expect(checks.map((c) => c.met)).toEqual([true, true, false]);
    expect(communicateChecks(["1,000"], ["1,000 dollars"])[0].met).toBe(false);
  });
  it("action: predicted keys must be a subset of gold keys with equal values", () => {
    const t = task("0");
    const gold = t.evaluation_criteria!.actions![0];
    const check = (args: object) => actionChecks(t, [{ name: gold.name, arguments: args }])[0].matched;
    expect(check(gold.arguments)).toBe(true);
    expect(check({ first_name: "Yusuf" })).toBe(true);
    expect(check({ ...gold.arguments, extra: 1 })).toBe(false);
    expect(check({ ...gold.arguments, zip: "00000" })).toBe(false);
  });
  it("pass^k is the mean over tasks of C(c,k)/C(n,k)", () => {
    const result = passHatK({ a: [1, 1, 0, 0], b: [1, 1, 1, 1], c: [0, 1.0000001, 0, 0] });
    expect(result.map((r) => r.k)).toEqual([1, 2, 3, 4]);
    expect(result[0].value).toBeCloseTo((0.5 + 1 + 0.25) / 3, 12);
    expect(result[1].value).toBeCloseTo((1 / 6 + 1 + 0) / 3, 12);
    expect(result[3].value).toBeCloseTo(1 / 3, 12);
    expect(passHatK({ a: [1, 1, 1], b: [1] }).map((r) => r.k)).toEqual([1]);
  });
});

describe("engine adapter", () => {
  it("exposes tasks as instances with a real environment and end-state × communicate reward", async () => {
    const source = loadTau2RetailSource(files);
    const inst = tau2RetailInstance(source, task("16"));
    expect(inst).toMatchObject({ id: "tau2:retail/16", dataset: "tau2:retail", taskId: "16" });
    expect(inst.tools.map((t) => t.function.name)[0]).toBe("calculate");
    const env = inst.createEnvironment();
    const calls = task("16").evaluation_criteria!.actions!.map((a) => ({ name: a.name, arguments: a.arguments, recordedContent: env.call(a.name, a.arguments).content }));
    expect(inst.score({ toolCalls: calls, assistantTexts: ["That comes to $8,276.23."], premature: false }).reward).toBe(1);
    expect(inst.score({ toolCalls: calls, assistantTexts: ["Done."], premature: false }).reward).toBe(0);
    // rehearse paradigm: responses were imagined, so nothing is compared, but the end state still counts
    expect(inst.score({ toolCalls: calls.map(({ name, arguments: a }) => ({ name, arguments: a })), assistantTexts: ["8276.23"], premature: false }).reward).toBe(1);
    const user = new ScriptedUser(["I want to know my total. ###STOP###"]);
    const turn = await inst.userTurn(user, [{ role: "user", content: "hello" }, { role: "assistant", content: "", tool_calls: [] }, { role: "assistant", content: "How can I help?" }]);
    expect(turn.stop).toBe("###STOP###");
    expect(user.requests[0].slice(1)).toEqual([{ role: "user", content: GREETING }, { role: "assistant", content: "hello" }, { role: "user", content: "How can I help?" }]);
  });
});

describe("engine TaskInstance form", () => {
  it("replays the episode's calls in the real environment and checks the gold end state", async () => {
    const source = { db, tasks, policy: policyText, userGuidelines };
    const t = task("0");
    const inst = tau2TaskInstance(source, t, "I want to exchange two items.");
    expect(inst.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const [dbItem] = inst.checklists[0][0];
    expect(dbItem.check).toEqual({ type: "state_equals", path: ["db_hash"], value: "a109be174767fde0ebb50fe3be37cdb2f1ce017fefd7bd29ea3e4d38bd3ac25a" });
    const env = await inst.environment!.create();
    const transcript = t.evaluation_criteria!.actions!.flatMap((a, i) => {
      const argumentsJson = JSON.stringify(a.arguments);
      return [
        { role: "assistant" as const, content: "", tool_calls: [{ id: `c${i}`, type: "function" as const, function: { name: a.name, arguments: argumentsJson } }] },
        { role: "tool" as const, content: String(env.execute(a.name, argumentsJson)) },
      ];
    });
    expect(await replaySnapshot(inst, transcript)).toEqual({ db_hash: "a109be174767fde0ebb50fe3be37cdb2f1ce017fefd7bd29ea3e4d38bd3ac25a" });
    expect(await replaySnapshot(inst, transcript.slice(0, 2))).not.toEqual({ db_hash: "a109be174767fde0ebb50fe3be37cdb2f1ce017fefd7bd29ea3e4d38bd3ac25a" });
    expect(env.execute("get_order_details", "{not json")).toBe("Error: the arguments of get_order_details are not valid JSON");
    const withInfo = tau2TaskInstance(source, task("16"), "hi");
    expect(withInfo.checklists[0][0].map((i) => [i.id, i.weight])).toEqual([["db", 0.5], ["communicate_0", 0.5]]);
  });
});
