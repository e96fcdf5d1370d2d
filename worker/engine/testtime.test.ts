/**
 * Test-time rehearsal: each phase samples with its own settings; private attempts contact nothing outside
 * the policy and see nothing hidden; transcripts reach assessment and memory condensed with every action;
 * sequential attempts see the earlier ones; the committed execution is conditioned on the memory.
 */
import { describe, expect, it } from "vitest";
import { parseRunConfig, quickstartPreset, testTimePreset, type RunConfigInput } from "../../contracts/run-config";
import { ExternalContactGuard } from "../../test/doubles/external-contact-guard";
import { ScriptedUser } from "../../test/doubles/scripted-user";
import { createShopOraclePolicy, fakeGeneration } from "../../test/doubles/shop-oracle";
import { retailTestData } from "../../test/fixtures/tau2-retail";
import { shopTasks, type ShopTask } from "../envs/shop/tasks";
import { tau2Source } from "../envs/tau2/environment";
import { tau2Instance } from "../envs/tau2/harness/live";
import { StepFailedError } from "./health";
import type { ChatClient, GenerateRequest, PolicyClient } from "./io";
import { COMPACT_REHEARSE_SYSTEM_PROMPT } from "./prompts";
import { runEvaluation } from "./step";
import {
  ASSESS_SYSTEM_PROMPT,
  MEMORY_NOTE_HEADER,
  MEMORY_SYSTEM_PROMPT,
  parseFeedback,
  privateInstance,
  rehearsedUser,
  SEQUENTIAL_NOTE_HEADER,
  USER_REHEARSAL_PROMPT,
  userRehearsalPrompt,
} from "./testtime";
import type { TaskInstance } from "./types";

type Phase = "private-act" | "committed-act" | "rehearse" | "user" | "assessment" | "memory";
interface SeenCall {
  phase: Phase;
  req: GenerateRequest;
  /** Every prompt text, joined: for "nothing hidden leaks" checks. */
  prompt: string;
}

function phaseOf(req: GenerateRequest): Phase {
  const sys = req.messages[0]?.content ?? "";
  if (sys === ASSESS_SYSTEM_PROMPT) return "assessment";
  if (sys === MEMORY_SYSTEM_PROMPT) return "memory";
  if (req.role === "rehearse") return sys.startsWith(USER_REHEARSAL_PROMPT) ? "user" : "rehearse";
  return sys.startsWith(MEMORY_NOTE_HEADER) ? "committed-act" : "private-act";
}

/**
 * A policy for test-time episodes: acts and rehearses like `inner` (the shop oracle by default), writes
 * fixed reviews and memories, and plays a user that stops after `userLines`.
 */
function testTimePolicy(options: { inner?: PolicyClient; userLines?: string[]; memory?: string; failing?: Phase[] } = {}) {
  const inner = options.inner ?? createShopOraclePolicy();
  const calls: SeenCall[] = [];
  let review = 0;
  const policy: PolicyClient = {
    async generate(req) {
      const phase = phaseOf(req);
      const prompt = req.messages.map((m) => m.content).join("\n");
      calls.push({ phase, req, prompt });
      if (options.failing?.includes(phase)) throw new Error(`${phase} is down`);
      if (phase === "assessment") return fakeGeneration(prompt, `Assessment: run ${++review} went fine\nSuggestion: check stock before adding`);
      if (phase === "memory") return fakeGeneration(prompt, options.memory ?? "MEMO: get_item first, then add_to_cart");
      if (phase === "user") {
        const said = req.messages.filter((m) => m.role === "assistant").length;
        return fakeGeneration(prompt, options.userLines?.[said] ?? "Thanks, that is all. ###STOP###");
      }
      return inner.generate(req);
    },
  };
  return { policy, calls };
}

function evalConfig(over: RunConfigInput = {}) {
  const r = parseRunConfig({
    ...quickstartPreset,
    kind: "eval",
    ...over,
    rollout: { ...quickstartPreset.rollout, shadowExecution: false, ...(over.rollout ?? {}) },
    reward: { ...quickstartPreset.reward, rehearsalGrounding: 0, ...(over.reward ?? {}) },
    testTime: { enabled: true, attempts: 3, mode: "parallel", ...(over.testTime ?? {}) },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

/** A shop task with follow-up user messages (hidden from private attempts). */
const multiTurnTask = (): ShopTask => shopTasks("test").find((t) => t.followUpUserMessages.length > 0)!;

describe("test-time sampling per phase", () => {
  it("each phase's generate calls carry that phase's sampling, never the evaluation sampling", async () => {
    const cfg = evalConfig({
      testTime: {
        enabled: true,
        attempts: 2,
        mode: "sequential",
        sampling: {
          act: { temperature: 0.91, topP: 0.81, maxTokens: 111 },
          rehearse: { temperature: 0.92, topP: 0.82, maxTokens: 112 },
          assessment: { temperature: 0.03, topP: 0.83, maxTokens: 113 },
          memory: { temperature: 0.04, topP: 0.84, maxTokens: 114 },
        },
      },
    });
    const { policy, calls } = testTimePolicy();
    await runEvaluation({ instances: [multiTurnTask()], config: cfg, policy, stepIndex: 1 });
    const sampling = (phase: Phase) => new Set(calls.filter((c) => c.phase === phase).map((c) => JSON.stringify(c.req.sampling)));
    const expected = {
      "private-act": { temperature: 0.91, topP: 0.81, maxTokens: 111 },
      "committed-act": { temperature: 0.91, topP: 0.81, maxTokens: 111 },
      rehearse: { temperature: 0.92, topP: 0.82, maxTokens: 112 },
      user: { temperature: 0.92, topP: 0.82, maxTokens: 112 },
      assessment: { temperature: 0.03, topP: 0.83, maxTokens: 113 },
      memory: { temperature: 0.04, topP: 0.84, maxTokens: 114 },
    };
    for (const [phase, s] of Object.entries(expected)) expect(sampling(phase as Phase), phase).toEqual(new Set([JSON.stringify(s)]));
    expect(calls.filter((c) => c.phase === "assessment")).toHaveLength(2);
    expect(calls.filter((c) => c.phase === "memory")).toHaveLength(1);
    expect(calls.some((c) => c.req.sampling.temperature === cfg.sampling.evalAct.temperature)).toBe(false);
  });

  it("the test-time preset is the paper's: act and rehearse 1.0 / 1.0, assessment and memory 0.01", () => {
    const r = parseRunConfig(testTimePreset);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const s = r.config.testTime.sampling;
    expect([s.act.temperature, s.act.topP, s.rehearse.temperature, s.rehearse.topP]).toEqual([1, 1, 1, 1]);
    expect([s.assessment.temperature, s.memory.temperature]).toEqual([0.01, 0.01]);
    expect(r.config.testTime.enabled).toBe(true);
    // The defaults of the section are the paper's too.
    const d = parseRunConfig({}).ok && (parseRunConfig({}) as { config: { testTime: typeof r.config.testTime } }).config.testTime.sampling;
    expect(d && [d.act.temperature, d.rehearse.temperature, d.assessment.temperature, d.memory.temperature]).toEqual([1, 1, 0.01, 0.01]);
  });
});

describe("private attempts contact nothing external", () => {
  it("shop: the real world is created and called only by the committed execution; hidden follow-ups and gold examples never reach a private prompt", async () => {
    const guard = new ExternalContactGuard();
    const task = multiTurnTask();
    const { policy, calls } = testTimePolicy();
    const cfg = evalConfig({ rollout: { paradigm: "rehearse", shadowExecution: true } });
    const res = await runEvaluation({ instances: [guard.instance(task)], config: cfg, policy: guard.policy(policy), stepIndex: 1 });
    expect(guard.violations).toEqual([]);
    expect(guard.contacts[0]).toBe("environment.create");
    expect(guard.contacts.filter((c) => c.startsWith("environment.execute")).length).toBeGreaterThan(0);

    const t = res.trajectories[0]!;
    expect(t.paradigm).toBe("environment");
    expect(t.privateAttempts).toHaveLength(3);
    for (const p of t.privateAttempts!) {
      expect(p.paradigm).toBe("rehearse");
      expect(p.turns.some((x) => x.role === "environment" || x.real !== undefined)).toBe(false);
    }
    const before = calls.slice(0, calls.findIndex((c) => c.phase === "memory") + 1);
    expect(before.some((c) => c.phase === "rehearse")).toBe(true);
    for (const c of before) {
      for (const hidden of task.followUpUserMessages) expect(c.prompt).not.toContain(hidden);
      // Compact rehearse prompts list the task's few-shot pairs as "eg …" lines: the gold answer.
      if (c.req.messages[0]?.content === COMPACT_REHEARSE_SYSTEM_PROMPT) expect(c.prompt).not.toMatch(/^eg /m);
    }
    // The committed execution meets the task's real follow-up messages.
    expect(t.messages.filter((m) => m.role === "user").map((m) => m.content)).toContain(task.followUpUserMessages[0]);
  });

  it("a task without a world: the external tool simulator and the judge are reached only by the committed execution", async () => {
    const guard = new ExternalContactGuard();
    const task = multiTurnTask();
    // No environment, checklist items left to an LLM judge.
    const noWorld: TaskInstance = {
      ...task,
      environment: undefined,
      checklists: task.checklists.map((c) => c.map((turn) => turn.map(({ check: _c, ...item }) => item))),
    };
    const simulator: ChatClient = { complete: async () => ({ text: JSON.stringify({ analysis: "ok", execution_result: { stock: 3, price: 2 } }) }) };
    // A real verdict (a judge that answers garbage would make the episode an error, failing the evaluation).
    const verdict = { high_level_understanding_of_the_question: "", analysis_of_if_focus_on: "", analysis_of_pass_condition: "", analysis_of_failure_examples: "", answer: false };
    const judge: ChatClient = { complete: async () => ({ text: JSON.stringify(verdict) }) };
    const cfg = evalConfig({ rollout: { paradigm: "simulator", simulator: { node: "sim", model: "m" } }, reward: { judge: { node: "judge", model: "j" }, judgeRetries: 1 } });
    const { policy } = testTimePolicy();
    const res = await runEvaluation({
      instances: [noWorld],
      config: cfg,
      policy: guard.policy(policy),
      simulator: guard.chatClient("tool simulator", simulator),
      judge: guard.chatClient("judge", judge),
      sleep: async () => {},
      stepIndex: 1,
    });
    expect(guard.violations).toEqual([]);
    expect(guard.contacts).toContain("tool simulator");
    expect(guard.contacts).toContain("judge");
    expect(res.trajectories[0]!.paradigm).toBe("simulator");
  });

  it("tau2 (live user): the user simulator, the retail tools and the scorer are reached only by the committed execution; the user's hidden instructions never reach a private prompt", async () => {
    retailTestData(); // a clear message naming ENVACE_DATA_DIR when the data is missing
    const source = tau2Source("train");
    const task = source.tasks[0]!;
    const guard = new ExternalContactGuard();
    const verify = '\n<tool_call>\n{"name": "find_user_id_by_name_zip", "arguments": {"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"}}\n</tool_call>';
    const inner: PolicyClient = {
      async generate(req) {
        const last = req.messages[req.messages.length - 1]!;
        const text = req.role === "rehearse" ? '\n<execution_result>\n{"user_id": "imagined"}\n</execution_result>' : last.role === "tool" ? "Thanks, you are verified." : verify;
        return fakeGeneration(req.messages.map((m) => m.content).join("\n"), text);
      },
    };
    const { policy, calls } = testTimePolicy({ inner, userLines: ["Hello, I need help with an order.", "That is all. ###STOP###"] });
    const user = new ScriptedUser(["Hi, I am Yusuf Rossi, zip 19122.", "###STOP###"], "###STOP###", "per-conversation");
    const cfg = evalConfig({
      data: { dataset: "tau2:retail", split: "train" },
      rollout: { paradigm: "environment", userSimulator: { node: "u", model: "u" }, promptBudgetTokens: 1_000_000 },
      testTime: { enabled: true, attempts: 2, mode: "sequential" },
    });
    const res = await runEvaluation({
      instances: [guard.instance(tau2Instance(source, task))],
      config: cfg,
      policy: guard.policy(policy),
      userSimulator: guard.chatClient("user simulator", user),
      stepIndex: 1,
    });
    expect(guard.violations).toEqual([]);
    expect(guard.contacts[0]).toBe("environment.create");
    expect(guard.contacts).toEqual(expect.arrayContaining(["user simulator", "environment.execute find_user_id_by_name_zip", "scoreEpisode"]));
    const t = res.trajectories[0]!;
    // The private attempts met an imagined user (the policy), opening the conversation itself.
    for (const p of t.privateAttempts!) expect(p.messages.find((m) => m.role === "user")?.content).toBe("Hello, I need help with an order.");
    const instructions = task.user_scenario.instructions;
    const hidden = typeof instructions === "string" ? [instructions] : [instructions.reason_for_call, instructions.known_info, instructions.task_instructions];
    const before = calls.slice(0, calls.findIndex((c) => c.phase === "memory") + 1);
    for (const c of before) for (const h of hidden.filter((x): x is string => typeof x === "string" && x.length > 12)) expect(c.prompt).not.toContain(h);
    // The real user opened the committed conversation.
    expect(t.messages.find((m) => m.role === "user")?.content).toBe("Hi, I am Yusuf Rossi, zip 19122.");
  });
});

describe("condensed transcripts reach assessment and memory with every action", () => {
  it("thinking is stripped and each call of the attempt is in its assessment prompt, within the token bound", async () => {
    const task = multiTurnTask();
    const oracle = createShopOraclePolicy({
      // Long thinking before every gold act output, and long rehearsed results.
      override: (req, gold) =>
        req.role === "act" && gold.includes("<tool_call>") ? `<think>${"deliberating ".repeat(400)}</think>${gold.replace(/^<think>[\s\S]*?<\/think>/, "")}` : undefined,
    });
    const { policy, calls } = testTimePolicy({ inner: oracle });
    const cfg = evalConfig({ testTime: { enabled: true, attempts: 2, mode: "parallel", transcriptTokens: 120 } });
    const res = await runEvaluation({ instances: [task], config: cfg, policy, stepIndex: 1 });
    const t = res.trajectories[0]!;
    const assessments = calls.filter((c) => c.phase === "assessment").map((c) => c.req.messages[1]!.content);
    expect(assessments).toHaveLength(2);
    for (const p of t.privateAttempts!) {
      const actions = p.messages.flatMap((m) => m.tool_calls ?? []);
      expect(actions.length).toBeGreaterThan(0);
      const prompt = assessments.find((a) => actions.every((c) => a.includes(`Call: ${c.function.name} ${c.function.arguments}`)));
      expect(prompt, "an assessment prompt holding every call of the attempt").toBeDefined();
      expect(prompt).not.toContain("deliberating");
    }
    const memory = calls.find((c) => c.phase === "memory")!.req.messages[1]!.content;
    for (const p of t.privateAttempts!) for (const c of p.messages.flatMap((m) => m.tool_calls ?? [])) expect(memory).toContain(c.function.arguments);
    expect(memory).not.toContain("deliberating");
    expect(t.testTime!.attempts.every((a) => a.transcript.length > 0 && !a.transcript.includes("deliberating"))).toBe(true);
  });
});

describe("the test-time pipeline", () => {
  for (const mode of ["parallel", "sequential"] as const) {
    it(`${mode}: N private attempts, their feedback and a memory condition one committed execution`, async () => {
      const { policy, calls } = testTimePolicy();
      const cfg = evalConfig({ testTime: { enabled: true, attempts: 3, mode } });
      const res = await runEvaluation({ instances: [multiTurnTask()], config: cfg, policy, stepIndex: 1 });
      const t = res.trajectories[0]!;
      expect(t.testTime!.mode).toBe(mode);
      expect(t.testTime!.attempts.map((a) => a.index)).toEqual([0, 1, 2]);
      expect(t.testTime!.attempts.every((a) => a.assessment.startsWith("run ") && a.suggestion === "check stock before adding")).toBe(true);
      expect(t.testTime!.memory).toBe("MEMO: get_item first, then add_to_cart");
      expect(t.testTime!.privateTokens).toBeGreaterThan(0);
      expect(t.messages[0]!.content.startsWith(`${MEMORY_NOTE_HEADER}\nMEMO: get_item first`)).toBe(true);
      expect(t.reward).toBeCloseTo(1, 9);
      // Sequential attempts see the earlier ones with their reviews; parallel ones see none.
      const privateActs = calls.filter((c) => c.phase === "private-act");
      const conditioned = privateActs.filter((c) => c.req.messages[0]!.content.startsWith(SEQUENTIAL_NOTE_HEADER));
      if (mode === "parallel") expect(conditioned).toHaveLength(0);
      else {
        expect(conditioned.some((c) => c.req.messages[0]!.content.includes("Practice run 2 (ended:"))).toBe(true);
        expect(conditioned.every((c) => c.req.messages[0]!.content.includes("Suggestion: check stock before adding"))).toBe(true);
      }
      // The memory prompt holds every attempt and its feedback.
      const memoryPrompt = calls.find((c) => c.phase === "memory")!.req.messages[1]!.content;
      for (const n of [1, 2, 3]) expect(memoryPrompt).toContain(`Practice run ${n} (ended:`);
      expect(res.metrics["testtime/attempts"]).toBe(3);
      expect(res.metrics["testtime/private_tokens/mean"]).toBe(t.testTime!.privateTokens);
    });
  }

  it("maxConcurrentRollouts bounds private rollouts too", async () => {
    let inFlight = 0;
    let peak = 0;
    const { policy: inner } = testTimePolicy();
    const policy: PolicyClient = {
      async generate(req) {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 2));
        try {
          return await inner.generate(req);
        } finally {
          inFlight--;
        }
      },
    };
    const cfg = evalConfig({ rollout: { maxConcurrentRollouts: 4 }, testTime: { enabled: true, attempts: 2, mode: "parallel" } });
    const res = await runEvaluation({ instances: shopTasks("test").slice(0, 4), config: cfg, policy, stepIndex: 1 });
    expect(res.trajectories).toHaveLength(4);
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(4);
  });

  it("a failed memory leaves the committed execution without notes, recorded and counted in the step's health", async () => {
    const { policy } = testTimePolicy({ failing: ["memory"] });
    const cfg = evalConfig({ testTime: { enabled: true, attempts: 2, mode: "parallel" } });
    const res = await runEvaluation({ instances: [multiTurnTask()], config: cfg, policy, stepIndex: 1 });
    const t = res.trajectories[0]!;
    expect(t.testTime!.memoryError).toBe("memory is down");
    expect(t.messages[0]!.content.includes(MEMORY_NOTE_HEADER)).toBe(false);
    expect(res.metrics["generation/failed"]).toBe(1);
    expect(res.metrics["testtime/memory_failed"]).toBe(1);

    const strict = evalConfig({ testTime: { enabled: true, attempts: 2, mode: "parallel" }, rollout: { maxFailedGenerationShare: 0 } });
    const failing = testTimePolicy({ failing: ["assessment"] });
    await expect(runEvaluation({ instances: [multiTurnTask()], config: strict, policy: failing.policy, stepIndex: 1 })).rejects.toBeInstanceOf(StepFailedError);
  });
});

describe("building blocks", () => {
  it("a private instance keeps only the public context", () => {
    const task = multiTurnTask();
    const p = privateInstance(task, { next: async () => ({ text: "hi" }) });
    expect(p.messages).toEqual(task.messages);
    expect(p.tools).toBe(task.tools);
    expect(p.followUpUserMessages).toEqual([]);
    expect(p.checklists).toEqual([]);
    expect(p.reference).toBeUndefined();
    expect(p.fewShot).toEqual([]);
    expect(p.environment).toBeUndefined();
    expect(p.liveUser).toBeDefined();
  });

  it("the rehearsed user sees the conversation from the user's side, without tool traffic or thinking", async () => {
    const prompt = userRehearsalPrompt([
      { role: "system", content: "You are a shop assistant." },
      { role: "user", content: "Two pens please." },
      { role: "assistant", content: "<think>secret</think>", tool_calls: [{ id: "a", type: "function", function: { name: "add_to_cart", arguments: "{}" } }] },
      { role: "tool", name: "add_to_cart", content: '{"ok": true}' },
      { role: "assistant", content: "<think>plan</think>Added two pens." },
    ]);
    expect(prompt[0]!.content).toContain(USER_REHEARSAL_PROMPT);
    expect(prompt[0]!.content).toContain("You are a shop assistant.");
    expect(prompt.slice(1)).toEqual([
      { role: "assistant", content: "Two pens please." },
      { role: "user", content: "Added two pens." },
    ]);
    expect(userRehearsalPrompt([{ role: "system", content: "S" }]).at(-1)).toEqual({ role: "user", content: "(The assistant is waiting for your first message.)" });

    const spent = { tokens: 0 };
    const policy: PolicyClient = { generate: async (req) => fakeGeneration("abc", req.messages.length > 2 ? "All done ###STOP###" : "I want a pen") };
    const user = rehearsedUser(policy, { temperature: 1, topP: 1, maxTokens: 10 }, spent);
    const sealed: ChatClient = { complete: async () => { throw new Error("never") } };
    expect(await user.next(sealed, [{ role: "system", content: "S" }], {})).toEqual({ text: "I want a pen" });
    expect(await user.next(sealed, prompt.slice(1), {})).toEqual({ text: "All done", stop: "user_stop" });
    expect(spent.tokens).toBeGreaterThan(0);
  });

  it("feedback is split into assessment and suggestion whatever the layout", () => {
    expect(parseFeedback("Assessment: good.\nSuggestion: none.")).toEqual({ assessment: "good.", suggestion: "none." });
    expect(parseFeedback("assessment:ok suggestion: retry")).toEqual({ assessment: "ok", suggestion: "retry" });
    expect(parseFeedback("It worked.")).toEqual({ assessment: "It worked.", suggestion: "" });
  });
});

describe("test-time memory that is half a thought", () => {
  it("an unclosed <think> is dropped from the memory and the feedback, recorded and counted; review prompts ask for no thinking", async () => {
    const { policy, calls } = testTimePolicy({ memory: "MEMO: get_item first.\n<think>\nHmm, maybe I should also say that the cart" });
    const inner = policy.generate.bind(policy);
    let reviews = 0;
    const cutPolicy: PolicyClient = {
      async generate(req) {
        if (phaseOf(req) === "assessment" && reviews++ === 0) return fakeGeneration("", "Assessment: fine.\nSuggestion: none.<think>\nbut wait, the order");
        return inner(req);
      },
    };
    const cfg = evalConfig({ testTime: { enabled: true, attempts: 2, mode: "sequential" } });
    const res = await runEvaluation({ instances: [multiTurnTask()], config: cfg, policy: cutPolicy, stepIndex: 1 });
    const t = res.trajectories[0]!;
    expect(t.testTime!.memory).toBe("MEMO: get_item first.");
    expect(t.testTime!.memoryTruncated).toBe(true);
    // The committed execution's system prompt carries what was finished, never the half thought.
    expect(t.messages[0]!.content).toContain(`${MEMORY_NOTE_HEADER}\nMEMO: get_item first.`);
    expect(t.messages[0]!.content).not.toContain("<think>");
    expect(t.testTime!.attempts[0]).toMatchObject({ feedback: "Assessment: fine.\nSuggestion: none.", suggestion: "none.", feedbackTruncated: true });
    expect(t.testTime!.attempts[1]!.feedbackTruncated).toBeUndefined();
    expect(res.metrics["testtime/memory_truncated"]).toBe(1);
    expect(res.metrics["testtime/feedback_truncated"]).toBe(1);
    // Assessment and memory are asked with thinking off; the attempts themselves keep the policy's setting.
    const reviewCalls = calls.filter((c) => c.phase === "assessment" || c.phase === "memory");
    expect(reviewCalls.length).toBeGreaterThan(0);
    expect(reviewCalls.every((c) => c.req.thinking === false)).toBe(true);
    expect(calls.filter((c) => c.phase === "private-act" || c.phase === "committed-act").every((c) => c.req.thinking === undefined)).toBe(true);
  });

  it("a memory cut at its token limit is kept but flagged", async () => {
    const { policy } = testTimePolicy();
    const inner = policy.generate.bind(policy);
    const cutPolicy: PolicyClient = {
      async generate(req) {
        const out = await inner(req);
        return phaseOf(req) === "memory" ? { ...out, finishReason: "length" } : out;
      },
    };
    const res = await runEvaluation({ instances: [multiTurnTask()], config: evalConfig({ testTime: { enabled: true, attempts: 1, mode: "parallel" } }), policy: cutPolicy, stepIndex: 1 });
    expect(res.trajectories[0]!.testTime).toMatchObject({ memory: "MEMO: get_item first, then add_to_cart", memoryTruncated: true });
  });
});
