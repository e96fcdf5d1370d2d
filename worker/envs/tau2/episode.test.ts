import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { GenerateRequest, GenerateResult, PolicyClient } from "../../engine/io";
import { replaySnapshot } from "../../engine/reward";
import { loadTau2RetailSource, tau2RetailInstance, tau2TaskInstance } from "./adapter";
import { parseAgentText, policyClientAgent, runTau2Episode, type AgentTurn, type Tau2AgentFn } from "./episode";
import { GREETING, renderScenario } from "./prompts";
import { actionChecks, communicateChecks, passHatK } from "./scoring";
import { ScriptedUser } from "./scripted-user";
import type { Tau2Task } from "./tasks";
import { retailTestData } from "./testdata";

const { db, tasks, files } = retailTestData();
const policyText = readFileSync(files.policy, "utf8");
const userGuidelines = readFileSync(files.userGuidelines, "utf8");
const task = (id: string) => tasks.find((t) => t.id === id)!;

/** An agent that replays the gold actions one call per turn, then states the communicate info. */
function goldAgent(t: Tau2Task, closing = (t.evaluation_criteria?.communicate_info ?? []).join(" and ")): Tau2AgentFn {
  const actions = t.evaluation_criteria?.actions ?? [];
  let next = 0;
  return async () => {
    if (next < actions.length) {
      const a = actions[next];
      return { text: "", toolCalls: [{ id: `call_${next++}`, name: a.name, arguments: a.arguments }] } satisfies AgentTurn;
    }
    return { text: `All done. ${closing}`, toolCalls: [] };
  };
}

const base = { db, policyText, userGuidelines };

describe("runTau2Episode", () => {
  it("scores 1 for every training task when the agent reaches the gold end state and says the info", async () => {
    for (const t of tasks) {
      const n = t.evaluation_criteria?.actions?.length ?? 0;
      const traj = await runTau2Episode({ ...base, task: t, agent: goldAgent(t), userSim: new ScriptedUser(["Hi, I need help with an order."]) });
      expect(traj.termination.reason, t.id).toBe("user_stop");
      expect(traj.steps).toBe(2 * n + 3);
      expect(traj.reward.reward, `task ${t.id}: ${JSON.stringify(traj.reward.db)}`).toBe(1);
      expect(traj.messages[0]).toEqual({ turn: 0, role: "assistant", content: GREETING });
      expect(traj.messages.map((m) => m.turn)).toEqual(traj.messages.map((_, i) => i));
    }
  });

  it("scores 0 when the end state differs or the info is not communicated", async () => {
    const silent: Tau2AgentFn = async () => ({ text: "I cannot help.", toolCalls: [] });
    const t0 = await runTau2Episode({ ...base, task: task("0"), agent: silent, userSim: new ScriptedUser(["Exchange please."]) });
    expect(t0.reward).toMatchObject({ reward: 0, evaluated: true, db: { match: false }, communicate: { reward: 1 } });
    // task 24 has no gold writes: talking changes nothing, but "polyester"/"cotton" must be said
    const t24 = await runTau2Episode({ ...base, task: task("24"), agent: silent, userSim: new ScriptedUser(["Question."]) });
    expect(t24.reward).toMatchObject({ reward: 0, db: { match: true }, communicate: { reward: 0 } });
    const said = await runTau2Episode({ ...base, task: task("24"), agent: async () => ({ text: "It is Polyester, not COTTON.", toolCalls: [] }), userSim: new ScriptedUser(["Q"]) });
    expect(said.reward.reward).toBe(1);
  });

  it("max_steps ends the episode with reward 0 and overrides a stop in the same step", async () => {
    const t = task("0");
    const limited = await runTau2Episode({ ...base, task: t, agent: goldAgent(t), userSim: new ScriptedUser(["hi"]), maxSteps: 4 });
    expect(limited.termination.reason).toBe("max_steps");
    expect(limited.steps).toBe(4);
    expect(limited.reward).toMatchObject({ reward: 0, evaluated: false });
    const n = t.evaluation_criteria!.actions!.length;
    const exact = await runTau2Episode({ ...base, task: t, agent: goldAgent(t), userSim: new ScriptedUser(["hi"]), maxSteps: 2 * n + 3 });
    expect(exact.termination.reason).toBe("max_steps");
    expect(exact.messages.at(-1)).toMatchObject({ role: "user", content: "###STOP###" });
  });

  it("records transfer, stalled and failing simulators, and invalid agent messages", async () => {
    const talk: Tau2AgentFn = async () => ({ text: "ok", toolCalls: [] });
    const t = task("57");
    expect((await runTau2Episode({ ...base, task: t, agent: talk, userSim: new ScriptedUser(["hi", "Thanks ###TRANSFER###"]) })).termination.reason).toBe("transfer");
    expect((await runTau2Episode({ ...base, task: t, agent: talk, userSim: new ScriptedUser(["hi", "   "]) })).termination.reason).toBe("user_stalled");
    expect((await runTau2Episode({ ...base, task: t, agent: talk, userSim: new ScriptedUser(["hi", "again", "again", "again"]) })).termination.reason).toBe("user_stalled");
    expect((await runTau2Episode({ ...base, task: t, agent: talk, userSim: new ScriptedUser(["x".repeat(9000)]) })).termination.reason).toBe("user_garbage");
    const failing = { complete: async () => { throw new Error("HTTP 503"); } };
    expect((await runTau2Episode({ ...base, task: t, agent: talk, userSim: failing })).termination).toEqual({ reason: "user_error", detail: "HTTP 503" });
    const blank = await runTau2Episode({ ...base, task: t, agent: async () => ({ text: " ", toolCalls: [] }), userSim: new ScriptedUser(["hi"]) });
    expect(blank.termination.reason).toBe("agent_invalid");
    expect(blank.reward.reward).toBe(0);
  });

  it("shows the user simulator the guidelines, the scenario and only text, with roles flipped", async () => {
    const t = task("0");
    expect(renderScenario(t)).toMatch(/^Instructions:\n\tDomain: retail\n\tReason for call:\n\t\tYou received your order #W2378156.*\n\tKnown info:\n\t\tYou are Yusuf Rossi in zip code 19122.\n\tUnknown info:\n\t\tYou do not remember your email address.\n\tTask instructions:\n\t\tYou are detail-oriented /);
    const user = new ScriptedUser(["I want an exchange."]);
    await runTau2Episode({ ...base, task: t, agent: goldAgent(t), userSim: user });
    const [first, second] = user.requests;
    expect(first[0].content).toBe(`${userGuidelines}\n\n<scenario>\n${renderScenario(t)}\n</scenario>`);
    expect(first.slice(1)).toEqual([{ role: "user", content: GREETING }]);
    expect(second.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(second.every((m) => m.role !== "tool" && !m.tool_calls)).toBe(true);
  });

  it("the fidelity probe predicts before the real call and agreement is measured", async () => {
    const t = task("0");
    const seen: number[] = [];
    const traj = await runTau2Episode({
      ...base, task: t, agent: goldAgent(t), userSim: new ScriptedUser(["hi"]),
      fidelityProbe: async ({ messages, call }) => {
        seen.push(messages.filter((m) => m.role === "tool").length);
        if (call.name === "find_user_id_by_name_zip") return "yusuf_rossi_9620";
        if (call.name === "get_order_details") return '{"order_id": "#W2378156", "status": "pending"}';
        throw new Error("probe offline");
      },
    });
    expect(seen).toEqual([0, 1, 2, 3, 4]); // each probe saw only the earlier calls' results
    expect(traj.toolCalls[0].rehearsal).toEqual({ predicted: "yusuf_rossi_9620", agreement: { exact: true, errorAgreement: true, score: 1, outcome: "values", divergences: [] } });
    const order = traj.toolCalls[1].rehearsal!;
    expect(order.agreement!.exact).toBe(false);
    expect(order.agreement!.score).toBeGreaterThan(0);
    expect(order.agreement!.score).toBeLessThan(0.2);
    expect(order.agreement!.divergences.map((d) => d.path)).toContain("$.status");
    expect(traj.toolCalls[2].rehearsal).toEqual({ predicted: null, probeError: "probe offline" });
    expect(traj.fidelity).toMatchObject({ probed: 5, probeFailures: 3, comparisons: 2, exactRate: 0.5, errorAgreementRate: 1 });
    expect(traj.reward.reward).toBe(1);
  });

  it("drives a PolicyClient through Hermes-style tool calls", async () => {
    const replies = ['Let me look.\n<tool_call>\n{"name": "find_user_id_by_email", "arguments": {"email": "yusuf.rossi7301@example.com"}}\n</tool_call>', "Your user id is yusuf_rossi_9620."];
    const requests: GenerateRequest[] = [];
    const policy: PolicyClient = {
      async generate(req): Promise<GenerateResult> {
        requests.push(req);
        return { text: replies.shift()!, promptTokens: [], tokens: [], logprobs: [], finishReason: "stop" };
      },
    };
    const traj = await runTau2Episode({ ...base, task: task("57"), agent: policyClientAgent(policy, { temperature: 0, topP: 1, maxTokens: 100 }), userSim: new ScriptedUser(["Who am I?"]) });
    expect(traj.toolCalls).toMatchObject([{ name: "find_user_id_by_email", response: "yusuf_rossi_9620", error: false }]);
    expect(requests[0].tools).toHaveLength(15);
    expect(requests[0].messages[0].content.startsWith("<instructions>\n")).toBe(true);
    expect(requests[0].messages[0].content.endsWith(`<policy>\n${policyText}\n</policy>`)).toBe(true);
    expect(requests[1].messages.at(-1)).toMatchObject({ role: "tool", content: "yusuf_rossi_9620" });
    expect(traj.messages[2]).toMatchObject({ role: "assistant", content: "Let me look." });
    const bad = parseAgentText("hello\n<tool_call>\n{bad json}\n</tool_call>");
    expect(bad.invalid?.code).toBeTruthy();
    const invalid = await runTau2Episode({ ...base, task: task("57"), agent: async () => bad, userSim: new ScriptedUser(["hi"]) });
    expect(invalid.termination.reason).toBe("agent_invalid");
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
    const env = inst.environment!.create();
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
