/**
 * tau2 retail evaluation runs end to end against real Postgres, queried back through the API the UI uses:
 * 1. the REAL embedded node process as the policy (its 1024-token context gets fitted prompts) with the
 *    ScriptedUser TEST DOUBLE injected as the user simulator through the executor's test-only hook (the
 *    embedded node itself is refused as the user simulator at launch: its prompts do not fit);
 * 2. the product path in a real worker process (worker/main.ts): policy AND user simulator are models on
 *    a registered OpenAI-compatible node — here the vLLM-like TEST DOUBLE (function calling, reasoning
 *    parser, 429s) serving a scripted model that replays task 0's gold actions — so the stored trajectories
 *    carry the REAL retail tool responses, the fidelity probe's predictions, pass^k, and a user simulator
 *    returning garbage ends its episodes with a recorded reason;
 * 3. a training run whose user simulator is that OpenAI node (streamed replies, per the node's settings).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../contracts/run-config";
import type { ChatClient } from "../engine/io";
import { insertRun } from "../../server/features/runs/service";
import { callerFor, eventually, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { startVllmDouble, type ScriptedModel, type VllmDouble } from "../../test/doubles/vllm-openai";
import { spawnTsx, startEmbeddedNode, type Child } from "../../test/processes";
import { retailDataFiles, loadTasks } from "../../lib/tau2/tasks";
import { loadRetailDb } from "../envs/tau2/domains/retail/model";
import { replayGoldActions } from "../envs/tau2/domains/retail/adapter";
import { ScriptedUser } from "../../test/doubles/scripted-user";
import { markDoctorPassed, registerCheckedNode } from "../../test/fixtures/doctor-report";
import { evalExecutor } from "./executors/eval";
import { RunWorker } from "./worker";

const databaseUrl = inject("databaseUrl");
const files = retailDataFiles();
const tasks = loadTasks(files.tasks);
const task0 = tasks.find((t) => t.id === "0")!;
const task2 = tasks.find((t) => t.id === "2")!;

type Caller = Awaited<ReturnType<typeof callerFor>>;

async function finished(caller: Caller, runId: string, what: () => string) {
  return eventually(async () => {
    const r = await caller.runs.get({ id: runId });
    return r.status === "succeeded" || r.status === "failed" ? r : null;
  }, 240_000, `run to finish\n${what()}`);
}

async function storedTrajectories(caller: Caller, runId: string) {
  const { items } = await caller.trajectories.list({ runId, limit: 500 });
  return Promise.all(items.map((t) => caller.trajectories.get({ id: t.id, turnsLimit: 200 })));
}

async function metricPoints(runId: string) {
  const points = await prisma.metricPoint.findMany({ where: { runId, key: { startsWith: "val/tau2/" } }, select: { key: true, value: true } });
  return Object.fromEntries(points.map((p) => [p.key, p.value]));
}

/**
 * The scripted model behind a vLLM-like OpenAI node (test/doubles/vllm-openai.ts: hermes tool parser, qwen3
 * reasoning parser). It writes as Qwen3 does — a think block, then the answer — and tells the three kinds of
 * request apart: user simulator (system prompt with <scenario>), act (function tools given), rehearse
 * (anything else). The act side replays task 0's gold actions, one `<tool_call>` per real tool response seen;
 * the user of task 2 returns 9000 characters of garbage.
 */
function scriptedRetailModel(): ScriptedModel {
  const actions = task0.evaluation_criteria!.actions!;
  const closing = `All done. ${(task0.evaluation_criteria?.communicate_info ?? []).join(" and ")}`;
  const task2Marker = task2.user_scenario.instructions.reason_for_call;
  const think = (why: string, answer: string) => `<think>\n${why}\n</think>\n\n${answer}`;
  return (req) => {
    const system = typeof req.messages[0]?.content === "string" ? req.messages[0].content : "";
    if (system.includes("<scenario>")) {
      if (system.includes(task2Marker)) return think("Noise.", "x".repeat(9000));
      const said = req.messages.filter((m) => m.role === "assistant").length;
      return think("I am the customer.", ["Hi, I would like to exchange items of a delivered order.", "Thanks, that is all. ###STOP###"][said] ?? "###STOP###");
    }
    if (req.tools?.length) {
      const done = req.messages.filter((m) => m.role === "tool").length;
      return done < actions.length
        ? think(`Step ${done + 1}.`, `<tool_call>\n${JSON.stringify({ name: actions[done].name, arguments: actions[done].arguments })}\n</tool_call>`)
        : think("Finished.", closing);
    }
    return think("Predicting the response.", '<execution_result>\n{"predicted": true}\n</execution_result>');
  };
}

describe("tau2 retail evaluation runs", () => {
  let member: TestUser;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let scripted: VllmDouble | undefined;
  const workers: Child[] = [];

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    node = await startEmbeddedNode();
    await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    await node?.kill("SIGKILL");
    await scripted?.close();
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("runs the embedded node as the policy with the ScriptedUser double, and stores browsable trajectories", async () => {
    const user = new ScriptedUser(
      ["Hi, I would like to exchange an item from my order.", "I am Yusuf Rossi, zip code 19122.", "Thanks, that is all. ###STOP###"],
      "###STOP###",
      "per-conversation",
    );
    const worker = new RunWorker({
      prisma,
      databaseUrl,
      concurrency: 1,
      logger: () => {},
      // TEST-ONLY HOOK: the ScriptedUser replaces the user simulator the config names.
      selectExecutor: () => (ctx) => evalExecutor(ctx, { userSimulator: user }),
    });
    await worker.start();
    try {
      const caller = await callerFor(member.headers);
      const config: RunConfigInput = {
        kind: "eval",
        policy: { node: "embedded", model: "tiny-gpt" },
        data: { dataset: "tau2:retail", split: "train", instanceIds: ["0", "1"] },
        trialsPerTask: 2,
        fidelityProbe: true,
        rollout: { paradigm: "environment", userSimulator: { node: "embedded", model: "tiny-gpt" }, maxAssistantTurns: 3, maxUserTurns: 3, maxMicroSteps: 8 },
        sampling: { evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 40 }, evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 40 } },
      };
      // The embedded node cannot be the user simulator: the doctor finds its 1,024-token context, and the user
      // simulator's first prompt of task 0 alone is 2,073 tokens. Refused at launch, on the field.
      const refused = await expectTrpcError(caller.runs.create({ name: "tau2-tiny-user", config }), "BAD_REQUEST");
      expect((refused.cause as unknown as { fieldErrors: { path: string; message: string }[] }).fieldErrors).toEqual([
        {
          path: "config.rollout.userSimulator.node",
          message: 'tau2:retail user-simulator prompts need ≥ 2,073 tokens; node "embedded" / tiny-gpt has 1,024 (its context length, found by the node doctor): choose a user simulator model with a longer context',
        },
      ]);
      // The ScriptedUser stands in for a user simulator on a registered node.
      await registerCheckedNode(prisma, "scripted-user", ["scripted"], { kind: "openai" });
      const run = await caller.runs.create({ name: "tau2-tiny", config: { ...config, rollout: { ...config.rollout, userSimulator: { node: "scripted-user", model: "scripted" } } } });
      const done = await finished(caller, run.id, () => "(in-process worker)");
      expect(done.error).toBeNull();
      expect(done.status).toBe("succeeded");

      const metrics = await metricPoints(run.id);
      expect(Object.keys(metrics)).toEqual(expect.arrayContaining(["val/tau2/pass^1", "val/tau2/pass^2", "val/tau2/tasks"]));
      expect(metrics["val/tau2/tasks"]).toBe(2);
      for (const k of ["val/tau2/pass^1", "val/tau2/pass^2"]) expect(metrics[k]).toBeGreaterThanOrEqual(0);

      const stored = await storedTrajectories(caller, run.id);
      expect(stored).toHaveLength(4);
      expect(stored.map((s) => s.trajectory.instanceId).sort()).toEqual(["tau2:retail/0", "tau2:retail/0", "tau2:retail/1", "tau2:retail/1"]);
      for (const { trajectory, turns } of stored) {
        expect(trajectory.phase).toBe("eval");
        expect(trajectory.paradigm).toBe("environment");
        expect(trajectory.terminationReason).toBeTruthy();
        // The user simulator opens; the real node then answered with prompts fitted into its 1024-token context.
        expect(turns[0]).toMatchObject({ role: "user", text: "Hi, I would like to exchange an item from my order." });
        const acts = turns.filter((t) => t.role === "act");
        expect(acts.length).toBeGreaterThan(0);
        for (const a of acts) {
          expect(a.promptTokens).toBeGreaterThan(0);
          expect(a.promptTokens).toBeLessThanOrEqual(1024);
        }
        // Any tool call the tiny model manages to make is answered by the real retail environment.
        for (const e of turns.filter((t) => t.role === "environment")) expect(e.realResponse).toBeTruthy();
        const summary = trajectory.summary as { judgements: { detail?: { taskId?: string } }[] };
        expect(summary.judgements.at(-1)?.detail?.taskId).toBe(trajectory.instanceId!.slice("tau2:retail/".length));
      }
      // The double saw the user-simulator context: scenario system prompt, then the greeting.
      expect(user.requests[0][0].content).toContain("<scenario>");
      expect(user.requests[0][1]).toEqual({ role: "user", content: "Hi! How can I help you today?" });
      const logs = (await caller.runs.logs({ runId: run.id, limit: 500 })).map((l) => l.message);
      expect(logs.some((m) => m.startsWith("task 0: ") && m.includes("/2 passed"))).toBe(true);
    } finally {
      await worker.stop({ drain: true });
    }
  });

  /**
   * A user simulator that fails at run time the way a small node refuses the retail prompt. The run is
   * inserted as runs.create inserts it but without the launch gate (which may refuse such a config up
   * front): what is tested is the worker's answer to failures it meets anyway.
   */
  const CONTEXT_ERROR = "prompt has 2073 tokens; the context length is 1024";
  async function queueUngated(name: string, config: RunConfigInput) {
    const parsed = parseRunConfig(config);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return prisma.$transaction((tx) => insertRun(tx, member.id, { name, tags: [] }, parsed.config));
  }
  const smallEval = (instanceIds: string[]): RunConfigInput => ({
    kind: "eval",
    policy: { node: "embedded", model: "tiny-gpt" },
    data: { dataset: "tau2:retail", split: "train", instanceIds },
    trialsPerTask: 2,
    // The config names a registered node that passes the doctor (the worker checks it again before the first
    // step); the double injected below is what answers.
    rollout: { paradigm: "environment", userSimulator: { node: "scripted-user", model: "scripted" }, maxAssistantTurns: 2, maxUserTurns: 2, maxMicroSteps: 6 },
    sampling: { evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 24 }, evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 24 } },
  });
  async function withUserSimulator<T>(userSimulator: ChatClient, body: () => Promise<T>): Promise<T> {
    if (await prisma.node.findUnique({ where: { name: "scripted-user" } })) await markDoctorPassed(prisma, "scripted-user", ["scripted"]);
    else await registerCheckedNode(prisma, "scripted-user", ["scripted"], { kind: "openai" });
    const worker = new RunWorker({
      prisma,
      databaseUrl,
      concurrency: 1,
      logger: () => {},
      // TEST-ONLY HOOK: the double replaces the user simulator the config names.
      selectExecutor: () => (ctx) => evalExecutor(ctx, { userSimulator }),
    });
    await worker.start();
    try {
      return await body();
    } finally {
      await worker.stop({ drain: true });
    }
  }

  it("an evaluation whose every episode errored fails with the cause in its status, never 'succeeded' with reward 0", async () => {
    const failing: ChatClient = { complete: async () => Promise.reject(new Error(CONTEXT_ERROR)) };
    const caller = await callerFor(member.headers);
    const run = await queueUngated("tau2-user-fails", smallEval(["0", "1", "2"]));
    const done = await withUserSimulator(failing, () => finished(caller, run.id, () => "(in-process worker)"));
    expect(done.status).toBe("failed");
    expect(done.error).toContain(`evaluation at step 1: every episode (6 of 6) errored (user simulator failed: 6); first: user simulator failed: ${CONTEXT_ERROR}`);
    // Nothing was scored: no evaluation step, no trajectories, no reward.
    expect(await prisma.step.count({ where: { runId: run.id } })).toBe(0);
    expect(await prisma.trajectory.count({ where: { runId: run.id } })).toBe(0);
    expect((done.latestMetrics as Record<string, number>)["val/reward/mean"]).toBeUndefined();
    // The runs list carries the same cause.
    const listed = (await caller.runs.list({ limit: 50 })).items.find((r) => r.id === run.id)!;
    expect(listed).toMatchObject({ status: "failed", error: done.error });
  });

  it("a partly errored evaluation scores over the episodes that ran and says how many were left out, and why", async () => {
    // Task 1's user simulator fails; task 0's answers (2 of 4 episodes errored: at rollout.maxEnvironmentErrorShare = 0.5, allowed).
    const task1 = tasks.find((t) => t.id === "1")!.user_scenario.instructions.reason_for_call;
    const user = new ScriptedUser(["Hi, I would like to exchange an item from my order.", "Thanks, that is all. ###STOP###"], "###STOP###", "per-conversation");
    const partly: ChatClient = {
      async complete(req) {
        if (typeof req.messages[0]?.content === "string" && req.messages[0].content.includes(task1)) throw new Error(CONTEXT_ERROR);
        return user.complete(req);
      },
    };
    const caller = await callerFor(member.headers);
    const run = await queueUngated("tau2-user-fails-on-one-task", smallEval(["0", "1"]));
    const done = await withUserSimulator(partly, () => finished(caller, run.id, () => "(in-process worker)"));
    expect(done.error).toBeNull();
    expect(done.status).toBe("succeeded");

    const stored = await storedTrajectories(caller, run.id);
    expect(stored).toHaveLength(4);
    for (const { trajectory } of stored.filter((s) => s.trajectory.instanceId === "tau2:retail/1")) {
      expect(trajectory).toMatchObject({ outcome: "error", terminationReason: "user_error", errorKind: "user_simulator", errorCause: `user simulator failed: ${CONTEXT_ERROR}` });
    }
    for (const { trajectory } of stored.filter((s) => s.trajectory.instanceId === "tau2:retail/0")) expect(trajectory.outcome).not.toBe("error");

    // Scores over task 0's two episodes; the two errored ones are counted apart.
    const metrics = await metricPoints(run.id);
    expect(metrics).toMatchObject({ "val/tau2/tasks": 1, "val/tau2/trials": 2, "val/tau2/errored": 2 });
    const points = await prisma.metricPoint.findMany({ where: { runId: run.id, key: { in: ["val/episodes/errored", "val/episodes/total", "val/episodes/errored/user_simulator"] } }, select: { key: true, value: true } });
    expect(Object.fromEntries(points.map((p) => [p.key, p.value]))).toEqual({ "val/episodes/errored": 2, "val/episodes/total": 4, "val/episodes/errored/user_simulator": 2 });
    expect(done.latestMetrics).toMatchObject({ "val/episodes/errored": 2, "val/episodes/total": 4 });
    expect(await caller.trajectories.errored({ runId: run.id })).toEqual({
      episodes: 4,
      errored: 2,
      byKind: [{ kind: "user_simulator", count: 2, example: `user simulator failed: ${CONTEXT_ERROR}` }],
    });
    const logs = (await caller.runs.logs({ runId: run.id, limit: 500 })).map((l) => l.message);
    expect(logs).toContainEqual(expect.stringMatching(/^task 1: 0\/0 passed, 2 errored and left out \(user_error, user_error\)$/));
  });

  it("stores the real tool responses, the fidelity probe and pass^k through the worker process; a garbage user ends with a recorded reason", async () => {
    // A vLLM-like node that rate-limits its first requests; the node's settings stream replies, cap requests in
    // flight at 2 and add a vendor extra.
    scripted = await startVllmDouble({ model: "scripted", respond: scriptedRetailModel(), rateLimit: { count: 3, retryAfterS: 1 }, streamChunkChars: 64 });
    await prisma.node.create({
      data: {
        name: "scripted",
        kind: "openai",
        baseUrl: scripted.url,
        settings: { openai: { stream: true, maxConcurrency: 2, extraBody: { top_k: 20, chat_template_kwargs: { enable_thinking: true } } } },
      },
    });
    // Checked a moment ago: the double receives exactly the run's requests (its first three get 429).
    await markDoctorPassed(prisma, "scripted", ["scripted"]);
    const w = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, ENVACE_HEARTBEAT_STALE_S: "2", WORKER_CONCURRENCY: "1" });
    workers.push(w);
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({
      name: "tau2-scripted",
      config: {
        kind: "eval",
        policy: { node: "scripted", model: "scripted" },
        data: { dataset: "tau2:retail", split: "train", instanceIds: ["0", "2"] },
        trialsPerTask: 2,
        fidelityProbe: true,
        rollout: { paradigm: "environment", userSimulator: { node: "scripted", model: "scripted" } },
      },
    });
    const done = await finished(caller, run.id, () => w.output());
    expect(done.error, w.output()).toBeNull();

    // The policy spoke vLLM's function-calling protocol: tools on act calls, assistant tool_calls with ids and
    // tool results tied to them (the double refuses anything else), within the node's settings.
    expect(scripted.rejected).toEqual([]);
    expect(scripted.stats.rateLimited).toBe(3);
    expect(scripted.stats.maxInFlight).toBeLessThanOrEqual(2);
    expect(scripted.requests.every((r) => r.stream === true && r.top_k === 20)).toBe(true);
    const acts = scripted.requests.filter((r) => r.tools?.length);
    expect(acts[0].tools!.map((t) => t.function.name)).toContain(task0.evaluation_criteria!.actions![0].name);
    const later = acts.find((r) => r.messages.some((m) => m.role === "tool"))!;
    const callIds = later.messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    expect(later.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(callIds);

    // pass^k over the trials that ran: task 2's user simulator returned garbage on both (errors, left out), task 0 passed both.
    const metrics = await metricPoints(run.id);
    expect(metrics["val/tau2/pass^1"]).toBe(1);
    expect(metrics["val/tau2/pass^2"]).toBe(1);
    expect(metrics["val/tau2/errored"]).toBe(2);

    const stored = await storedTrajectories(caller, run.id);
    const gold = replayGoldActions(task0, loadRetailDb(files.db)).results;
    const solved = stored.filter((s) => s.trajectory.instanceId === "tau2:retail/0");
    expect(solved).toHaveLength(2);
    for (const { trajectory, turns, verdicts } of solved) {
      expect(trajectory).toMatchObject({ outcome: "success", reward: 1, terminationReason: "user_stop" });
      const env = turns.filter((t) => t.role === "environment");
      // The REAL retail responses, byte for byte what the gold replay returns, with the probe's prediction beside them.
      expect(env.map((t) => t.realResponse)).toEqual(gold.map((g) => g.content));
      expect(env.every((t) => t.rehearsedResponse === '{"predicted": true}' && t.fidelity !== null)).toBe(true);
      expect(env.map((t) => (t.toolCalls as { name: string }).name)).toEqual(gold.map((g) => g.name));
      expect(turns.at(-1)).toMatchObject({ role: "user", text: "Thanks, that is all. ###STOP###" });
      expect(verdicts.find((v) => v.itemId === "db")).toMatchObject({ passed: true });
      expect(trajectory.fidelity).not.toBeNull();
    }
    const garbage = stored.filter((s) => s.trajectory.instanceId === "tau2:retail/2");
    expect(garbage).toHaveLength(2);
    for (const { trajectory, turns } of garbage) {
      expect(trajectory).toMatchObject({ reward: 0, terminationReason: "user_garbage", outcome: "error", errorKind: "user_simulator", errorCause: "user simulator failed: the user simulator returned 9000 characters (limit 8000)" });
      expect(turns).toHaveLength(1);
      expect(turns[0]).toMatchObject({ role: "user", errorCode: "USER_GARBAGE" });
      const summary = trajectory.summary as { judgements: { detail?: { termination?: unknown } }[] };
      expect(summary.judgements.at(-1)?.detail?.termination).toEqual({ reason: "user_garbage", code: "USER_GARBAGE", detail: "the user simulator returned 9000 characters (limit 8000)" });
    }
  });

  it("trains on tau2 tasks: the embedded node acts and rehearses, the scripted node plays the user, rewards replay the real DB", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({
      name: "tau2-train",
      config: {
        kind: "train",
        policy: { node: "embedded", model: "tiny-gpt" },
        data: { dataset: "tau2:retail", split: "train", instanceIds: ["0"], instancesPerStep: 1, rolloutsPerInstance: 2 },
        rollout: { paradigm: "rehearse", shadowExecution: true, userSimulator: { node: "scripted", model: "scripted" }, maxAssistantTurns: 3, maxUserTurns: 3, maxMicroSteps: 8 },
        sampling: {
          act: { temperature: 1, topP: 1, maxTokens: 40 },
          rehearse: { temperature: 1, topP: 1, maxTokens: 40 },
          evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 40 },
          evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 40 },
        },
        optim: { lr: 1e-3 },
        schedule: { steps: 1, saveEvery: 1, evalEvery: 1 },
      },
    });
    const done = await finished(caller, run.id, () => workers.map((w) => w.output()).join("\n"));
    expect(done.error).toBeNull();
    expect(done.status).toBe("succeeded");

    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: { kind: "asc" }, select: { kind: true, statePath: true, metrics: true } });
    expect(steps.map((x) => x.kind)).toEqual(["eval", "train"]);
    expect(steps[1].statePath).toMatch(/^tinker:\/\//);
    expect((steps[1].metrics as Record<string, number>)["training/num_datums"]).toBeGreaterThan(0);
    expect(Object.keys(await metricPoints(run.id))).toContain("val/tau2/pass^1");

    const { items } = await caller.trajectories.list({ runId: run.id, phase: "train", limit: 50 });
    expect(items).toHaveLength(2);
    for (const t of items) {
      expect(t).toMatchObject({ paradigm: "rehearse", instanceId: "tau2:retail/0" });
      const { turns } = await caller.trajectories.get({ id: t.id, turnsLimit: 200 });
      expect(turns[0]).toMatchObject({ role: "user", text: "Hi, I would like to exchange items of a delivered order." });
      expect(turns.some((x) => x.role === "act" && x.advantage !== null && x.responseTokens > 0)).toBe(true);
    }
  });
});
