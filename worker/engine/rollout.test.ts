import { describe, expect, it } from "vitest";
import { createShopOraclePolicy, fakeGeneration } from "../../test/doubles/shop-oracle";
import { shopTasks } from "../envs/shop/tasks";
import type { ChatClient, GenerateRequest, PolicyClient } from "./io";
import { ChecklistJudge, judgeTurn } from "./reward";
import {
  applyEvent,
  expandJobs,
  nextNeed,
  type RolloutDriverConfig,
  type RolloutOptions,
  runOneRollout,
  runRollouts,
  startRollout,
  Termination,
  type JudgeTurnHook,
} from "./rollout";
import type { TaskInstance } from "./types";

const sampling = { temperature: 1, topP: 1, maxTokens: 100 };
const baseOptions: RolloutOptions = {
  paradigm: "rehearse",
  shadowExecution: true,
  maxAssistantTurns: 30,
  maxUserTurns: 30,
  maxMicroSteps: 200,
  promptBudgetTokens: 100_000,
};
const config = (options: Partial<RolloutOptions> = {}, extra: Partial<RolloutDriverConfig> = {}): RolloutDriverConfig => ({
  options: { ...baseOptions, ...options },
  sampling: { act: sampling, rehearse: sampling },
  maxConcurrentRollouts: 8,
  maxChecklists: 1,
  sleep: async () => {},
  ...extra,
});

const judge = new ChecklistJudge(undefined, { concurrency: 4, timeoutMs: 1000, retries: 1, temperature: 0, topP: 1, maxTokens: 10 });
const programmaticJudge: JudgeTurnHook = ({ job, state }) =>
  judgeTurn(
    {
      instance: job.instance,
      messages: state.messages,
      turnStartIndex: state.turnStartIndex,
      userTurnIndex: state.userTurnIndex,
      lastToolFailed: state.lastToolFailed,
      maxChecklists: 1,
    },
    judge,
  );

const task = (template: string) => shopTasks("train").find((t) => t.template === template)!;
const job = (instance: TaskInstance) => expandJobs([instance], 1, "g")[0];

describe("rollout driver on the shop domain", () => {
  it("gold acting + perfect rehearsal scores 1 with exact shadow fidelity", async () => {
    const r = await runOneRollout(job(task("cart_checkout")), { policy: createShopOraclePolicy() }, config(), programmaticJudge);
    expect(r.terminationReason).toBe(Termination.checklistComplete);
    expect(r.episodeReward).toBeCloseTo(2, 9);
    expect(r.normalizedReward).toBeCloseTo(1, 9);
    const rehearse = r.state.records.filter((x) => x.role === "rehearse");
    expect(rehearse).toHaveLength(2);
    for (const x of rehearse) expect(x.fidelity).toMatchObject({ exact: true, errorAgreement: true, score: 1 });
    expect(r.state.records.map((x) => x.role)).toEqual(["act", "rehearse", "act", "user", "act", "rehearse", "act"]);
    expect(r.state.microSteps).toBe(6);
    expect(r.judgements.map((j) => j.userTurnIndex)).toEqual([0, 1]);
  });

  it("answers several calls of one act message in call order", async () => {
    const t = task("compare");
    const r = await runOneRollout(job(t), { policy: createShopOraclePolicy() }, config(), programmaticJudge);
    const act = r.state.records[0];
    expect(act.calls?.map((c) => c.argumentsJson)).toHaveLength(2);
    const tools = r.state.messages.filter((m) => m.role === "tool");
    expect(tools.map((m) => JSON.parse(m.content).item)).toEqual(act.calls!.map((c) => JSON.parse(c.argumentsJson).item));
    expect(r.normalizedReward).toBeCloseTo(1, 9);
  });

  it("environment paradigm answers from the real world without rehearse generations", async () => {
    const policy = createShopOraclePolicy();
    const r = await runOneRollout(job(task("buy")), { policy }, config({ paradigm: "environment", shadowExecution: false }), programmaticJudge);
    expect(r.state.records.map((x) => x.role)).toEqual(["act", "environment", "act", "environment", "act"]);
    expect(policy.calls).toBe(3);
    expect(r.normalizedReward).toBeCloseTo(1, 9);
  });

  it("simulator paradigm uses the external ChatClient; a failing simulator terminates", async () => {
    const good: ChatClient = { complete: async () => ({ text: '{"analysis":"ok","execution_result":{"item":"x","price":1,"stock":1}}' }) };
    const r = await runOneRollout(job(task("price")), { policy: createShopOraclePolicy(), simulator: good }, config({ paradigm: "simulator", shadowExecution: false }), programmaticJudge);
    expect(r.state.records[1]).toMatchObject({ role: "simulator", rehearsed: '{"item": "x", "price": 1, "stock": 1}' });
    expect(r.terminationReason).toBe(Termination.checklistComplete);

    let attempts = 0;
    const bad: ChatClient = { complete: async () => { attempts++; throw new Error("down"); } };
    const r2 = await runOneRollout(job(task("price")), { policy: createShopOraclePolicy(), simulator: bad }, config({ paradigm: "simulator", shadowExecution: false }, { simulator: { temperature: 0, topP: 1, maxTokens: 10, attempts: 3, timeoutMs: 1000 } }), programmaticJudge);
    expect(attempts).toBe(3);
    expect(r2.terminationReason).toBe(Termination.simulatorFailed);
    expect(r2.judgements).toHaveLength(0);
  });

  it("act parse errors terminate before judging and append an error_tool_call message", async () => {
    const policy = createShopOraclePolicy({ override: (req) => (req.role === "act" ? "\n<tool_call>\n{broken\n</tool_call>" : undefined) });
    const r = await runOneRollout(job(task("price")), { policy }, config(), programmaticJudge);
    expect(r.terminationReason).toBe("act_parse_error:JSON_DECODE_ERROR");
    expect(r.state.messages.at(-1)).toMatchObject({ role: "tool", name: "error_tool_call" });
    expect(r.judgements).toHaveLength(0);
    expect(r.episodeReward).toBe(0);
  });

  it("a malformed rehearsal still lets the remaining calls run, then terminates at the flush", async () => {
    let n = 0;
    const policy = createShopOraclePolicy({ override: (req) => (req.role === "rehearse" && n++ === 0 ? "no tags here" : undefined) });
    const r = await runOneRollout(job(task("compare")), { policy }, config(), programmaticJudge);
    expect(r.state.records.filter((x) => x.role === "rehearse")).toHaveLength(2);
    expect(r.terminationReason).toBe("rehearse_parse_error:NO_EXECUTION_RESULT_TAG_FOUND");
    expect(r.state.records[1].fidelity?.errorAgreement).toBe(false);
  });

  it("a simulator-declared error terminates with tool_error", async () => {
    const policy = createShopOraclePolicy({
      override: (req) => (req.role === "rehearse" ? '\n<execution_result>\n{"error_tool_call":{"code":"INVALID_PARAMETERS","message":"x"}}\n</execution_result>' : undefined),
    });
    const r = await runOneRollout(job(task("price")), { policy }, config(), programmaticJudge);
    expect(r.terminationReason).toBe("tool_error:INVALID_PARAMETERS");
  });

  it("a rehearse backend failure becomes a flat string and the episode continues", async () => {
    const oracle = createShopOraclePolicy();
    const policy: PolicyClient = {
      generate: async (req: GenerateRequest) => {
        if (req.role === "rehearse") throw new Error("boom");
        return oracle.generate(req);
      },
    };
    const r = await runOneRollout(job(task("price")), { policy }, config(), programmaticJudge);
    expect(r.state.messages.find((m) => m.role === "tool")?.content).toBe("Error when executing tool: simulator_rollout_failed: boom");
    expect(r.terminationReason).toBe(Termination.checklistComplete);
  });

  it("stops at the micro-step cap, the assistant-turn cap and the context budget", async () => {
    const looping = createShopOraclePolicy({
      override: (req) => (req.role === "act" ? '\n<tool_call>\n{"name":"get_item","arguments":{"item":"tea"}}\n</tool_call>' : undefined),
    });
    const capped = await runOneRollout(job(task("price")), { policy: looping }, config({ maxMicroSteps: 5 }), programmaticJudge);
    expect(capped.terminationReason).toBe(Termination.maxMicroSteps);
    expect(capped.state.microSteps).toBe(5);

    const turns = await runOneRollout(job(task("cart_checkout")), { policy: createShopOraclePolicy() }, config({ maxAssistantTurns: 2 }), programmaticJudge);
    expect(turns.terminationReason).toBe(Termination.maxAssistantTurns);
    expect(turns.judgements).toHaveLength(1);

    const long = await runOneRollout(job(task("buy")), { policy: createShopOraclePolicy() }, config({ promptBudgetTokens: 150 }), programmaticJudge);
    expect(long.terminationReason).toBe(Termination.lengthExceeded);
  });

  it("the judge's required-item rule stops a multi-turn episode after the first turn", async () => {
    const wrongItem = createShopOraclePolicy({
      override: (req, oracle) => (req.role === "act" ? oracle.replace(/"item":"(\w+)"/, '"item":"pen"').replace(/"qty":\d/, '"qty":1') : undefined),
    });
    const t = shopTasks("train").find((x) => x.template === "cart_checkout" && !x.id.includes("-pen-"))!;
    const r = await runOneRollout(job(t), { policy: wrongItem }, config(), programmaticJudge);
    expect(r.terminationReason).toBe(Termination.judgeRequiredFailed);
    expect(r.judgements).toHaveLength(1);
  });

  it("empty checklists terminate immediately", () => {
    const t = { ...task("price"), checklists: [] };
    const s = startRollout(t, baseOptions, "x");
    expect(s.status).toBe("terminated");
    expect(s.terminationReason).toBe(Termination.emptyChecklist);
    expect(nextNeed(s)).toEqual({ kind: "done" });
  });

  it("ignores events that do not match the state", () => {
    const s = startRollout(task("price"), baseOptions, "x");
    expect(applyEvent(s, { kind: "judged", stop: true })).toBe(s);
    expect(applyEvent(s, { kind: "act", output: fakeGeneration("", "hi") }).status).toBe("interacting");
  });

  it("runRollouts keeps order, groups K rollouts and bounds concurrency", async () => {
    let inFlight = 0;
    let peak = 0;
    const oracle = createShopOraclePolicy();
    const policy: PolicyClient = {
      generate: async (req) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return oracle.generate(req);
      },
    };
    const instances = shopTasks("train").slice(0, 6);
    const jobs = expandJobs(instances, 3, "s0");
    const results = await runRollouts(jobs, { policy }, config({}, { maxConcurrentRollouts: 4 }), programmaticJudge);
    expect(results.map((r) => r.job.rolloutId)).toEqual(jobs.map((j) => j.rolloutId));
    expect(new Set(results.map((r) => r.job.groupId)).size).toBe(6);
    expect(peak).toBeLessThanOrEqual(4);
    expect(peak).toBeGreaterThan(1);
    for (const r of results) expect(r.normalizedReward).toBeCloseTo(1, 9);
  });
});

describe("fidelity probe", () => {
  it("in the environment paradigm asks the rehearse role beside each real call without conditioning on it", async () => {
    const policy = createShopOraclePolicy();
    const r = await runOneRollout(job(task("buy")), { policy }, config({ paradigm: "environment", shadowExecution: false, fidelityProbe: true }), programmaticJudge);
    const env = r.state.records.filter((x) => x.role === "environment");
    expect(env).toHaveLength(2);
    for (const x of env) expect(x.fidelity).toMatchObject({ exact: true });
    expect(policy.calls).toBe(5);
    expect(r.normalizedReward).toBeCloseTo(1, 9);
  });
});
