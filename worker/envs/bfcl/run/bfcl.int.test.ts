/**
 * BFCL evaluation and training runs end to end against real Postgres, read back through the API the UI uses:
 * 1. evaluation through a real worker process (worker/main.ts): the policy is a model on a registered
 *    OpenAI-compatible node — the vLLM-like TEST DOUBLE serving the ground-truth policy double — over a
 *    representative subset of every runnable category, 2 trials per task (Avg@2). Every category scores
 *    100 % except one task the double answers wrongly on purpose, whose failing check is stored and named;
 *    memory questions ran after their prerequisite conversations; the not-run categories are logged;
 * 2. training on BFCL multi-turn in the rehearse paradigm with shadow execution on the REAL embedded node
 *    (its tiny model first fine-tuned on the tasks' first call, test/fixtures/bfcl-warm-start.ts): the model
 *    scores ~0, but the run trains, records rehearsed beside real responses and rolls fidelity up per tool for
 *    the world-model view.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bfclOutcomeOfSummary } from "../../../../lib/bfcl/outcome";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../../../test/helpers";
import { BfclGroundTruthIndex } from "../../../../test/doubles/bfcl-ground-truth";
import { startVllmDouble, type VllmDouble } from "../../../../test/doubles/vllm-openai";
import { hasBfclData } from "../../../../test/fixtures/bfcl-data";
import { bfclWarmStart } from "../../../../test/fixtures/bfcl-warm-start";
import { markDoctorPassed } from "../../../../test/fixtures/doctor-report";
import { spawnTsx, startEmbeddedNode, type Child } from "../../../../test/processes";
import { loadMultiTurnTasks, MULTI_TURN_CATEGORIES } from "../data";
import { loadMemoryQuestions, loadPrereqConversation } from "../memory/data";
import { loadSingleTurnCategory, SINGLE_TURN_CATEGORIES } from "../single-turn/data";

const databaseUrl = inject("databaseUrl");

type Caller = Awaited<ReturnType<typeof callerFor>>;

async function finished(caller: Caller, runId: string, what: () => string) {
  return eventually(async () => {
    const r = await caller.runs.get({ id: runId });
    return r.status === "succeeded" || r.status === "failed" ? r : null;
  }, 600_000, `run to finish\n${what()}`);
}

async function bfclMetrics(runId: string): Promise<Record<string, number>> {
  const points = await prisma.metricPoint.findMany({ where: { runId, key: { startsWith: "val/bfcl/" } }, select: { key: true, value: true } });
  return Object.fromEntries(points.map((p) => [p.key, p.value]));
}

/** Two tasks per runnable category; the multi-turn ones are told apart by their opening message. */
const MULTI_TURN_IDS = ["multi_turn_base_0", "multi_turn_base_1", "multi_turn_miss_func_2", "multi_turn_miss_func_3", "multi_turn_miss_param_2", "multi_turn_miss_param_11", "multi_turn_long_context_5", "multi_turn_long_context_151"];
const SABOTAGED = "multi_turn_base_1";
const TRAIN_IDS = ["multi_turn_base_0", "multi_turn_base_1"];

describe.skipIf(!hasBfclData())("BFCL runs", () => {
  let member: TestUser;
  let scripted: VllmDouble | undefined;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>> | undefined;
  let warm: Awaited<ReturnType<typeof bfclWarmStart>> | undefined;
  const workers: Child[] = [];

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    await node?.kill("SIGKILL");
    await scripted?.close();
    warm?.remove();
  });

  it("evaluates every runnable category through a worker process: the ground truth scores 100 %, a wrong task names its failing check", { timeout: 900_000 }, async () => {
    const multiTurn = MULTI_TURN_CATEGORIES.flatMap((c) => loadMultiTurnTasks(c)).filter((t) => MULTI_TURN_IDS.includes(t.id));
    const singleTurn = SINGLE_TURN_CATEGORIES.flatMap((c) => loadSingleTurnCategory(c).slice(0, 2));
    const memory = (["memory_kv", "memory_rec_sum"] as const).flatMap((c) => loadMemoryQuestions(c).slice(0, 2));
    const index = new BfclGroundTruthIndex({ multiTurn, singleTurn, memory }, undefined, new Set([SABOTAGED]));
    scripted = await startVllmDouble({ model: "ground-truth", respond: index.scriptedModel() });
    await prisma.node.create({ data: { name: "gt", kind: "openai", baseUrl: scripted.url, settings: { openai: { maxConcurrency: 8 } } } });
    // Checked a moment ago: the double answers BFCL prompts only (the doctor's probe is not one), and the
    // subject here is the run, not the doctor.
    await markDoctorPassed(prisma, "gt", ["ground-truth"]);
    const w = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, WORKER_CONCURRENCY: "1" });
    workers.push(w);

    const caller = await callerFor(member.headers);
    const ids = [...multiTurn.map((t) => t.id), ...singleTurn.map((e) => e.id), ...memory.map((q) => q.id)];
    const run = await caller.runs.create({
      name: "bfcl-ground-truth",
      config: {
        kind: "eval",
        policy: { node: "gt", model: "ground-truth" },
        data: { dataset: "bfcl:all", instanceIds: ids },
        trialsPerTask: 2,
        rollout: { paradigm: "environment", maxAssistantTurns: 100, maxMicroSteps: 400, promptBudgetTokens: 1_000_000, maxConcurrentRollouts: 8 },
      },
    });
    const done = await finished(caller, run.id, () => w.output());
    expect(done.error, w.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(scripted.rejected).toEqual([]);

    // Per-category Avg@2, with the tasks and trials behind it; the sabotaged task halves multi_turn_base.
    const m = await bfclMetrics(run.id);
    const categories = [...MULTI_TURN_CATEGORIES, ...SINGLE_TURN_CATEGORIES, "memory_kv", "memory_rec_sum"];
    for (const c of categories) {
      expect([c, m[`val/bfcl/${c}/accuracy`], m[`val/bfcl/${c}/tasks`], m[`val/bfcl/${c}/trials`]]).toEqual([c, c === "multi_turn_base" ? 0.5 : 1, 2, 4]);
    }
    expect(m["val/bfcl/summary/non_live"]).toBe(1);
    expect(m["val/bfcl/summary/live"]).toBe(1);
    expect(m["val/bfcl/summary/irrelevance"]).toBe(1);
    expect(m["val/bfcl/summary/multi_turn"]).toBe((0.5 + 1 + 1 + 1) / 4);
    // Web search and memory_vector were not run: no Web, Memory or Avg value (never 0).
    expect(m["val/bfcl/summary/web_search"]).toBeUndefined();
    expect(m["val/bfcl/summary/overall"]).toBeUndefined();

    // Per-task outcomes are browsable: the failing one names its turn and check.
    const { items } = await caller.trajectories.list({ runId: run.id, limit: 500 });
    expect(items).toHaveLength(ids.length * 2);
    const wrong = items.filter((t) => t.instanceId === SABOTAGED);
    expect(wrong).toHaveLength(2);
    for (const t of wrong) {
      const detail = await caller.trajectories.get({ id: t.id, turnsLimit: 200 });
      const outcome = bfclOutcomeOfSummary(detail.trajectory.summary)!;
      expect(outcome).toMatchObject({ category: "multi_turn_base", taskId: SABOTAGED, scored: true, valid: false, check: { turn: 0 } });
      expect(outcome.check!.errorType).toMatch(/^multi_turn:(instance_state_mismatch|execution_response_mismatch|empty_turn_model_response)$/);
      const failing = detail.verdicts.filter((v) => !v.passed);
      expect(failing).toHaveLength(1);
      expect(failing[0].question).toMatch(/^Turn 1: /);
      expect(failing[0].turnIndex).not.toBeNull();
      // The real back ends answered every call.
      for (const e of detail.turns.filter((x) => x.role === "environment")) expect(e.realResponse).toBeTruthy();
    }
    // Memory questions ran after their scenario's prerequisite conversations, per trial.
    const question = items.find((t) => t.instanceId === memory[0].id)!;
    const qDetail = await caller.trajectories.get({ id: question.id, turnsLimit: 50 });
    expect(bfclOutcomeOfSummary(qDetail.trajectory.summary)?.prerequisites?.entries.map((e) => e.id)).toEqual(loadPrereqConversation("memory_kv", memory[0].scenario).map((e) => e.id));

    // The run page reads the same block (runs.bfcl): per-category Avg@2 with tasks and trials.
    const onPage = (await caller.runs.bfcl({ runId: run.id }))!;
    expect(onPage.categories.find((c) => c.category === "multi_turn_base")).toEqual({ category: "multi_turn_base", accuracy: 50, tasks: 2, trials: 4, notScored: 0, of: 200 });
    expect(onPage.categories).toHaveLength(categories.length);

    // The report shows the paper's BFCL columns, with a note where a column was not run.
    const created = await caller.reports.create({ title: "BFCL ground truth", runIds: [run.id] });
    const { document } = await caller.reports.get({ id: created.id });
    const row = document.bfcl!.rows[0];
    expect(row.columns.map((c) => [c.label, c.value])).toEqual([
      ["Web", null],
      ["Memory", null],
      ["Multi-turn", 87.5],
      ["Non-live", 100],
      ["Live", 100],
      ["Irrelevance", 100],
      ["Avg", null],
    ]);
    expect(row.columns.find((c) => c.key === "memory")).toMatchObject({ partial: 100, note: expect.stringMatching(/memory_vector \(needs an embedding node/) });
    expect(row.notes.some((n) => n.startsWith("Subsets: simple_python 2 of 400 tasks"))).toBe(true);

    const logs = (await caller.runs.logs({ runId: run.id, limit: 500 })).map((l) => l.message);
    expect(logs.some((l) => /BFCL memory_vector is not run/.test(l))).toBe(true);
    expect(logs.some((l) => /^evaluation: BFCL Web not run, Memory \(100\.00 partial\), Multi-turn 87\.50/.test(l))).toBe(true);
    expect(logs.some((l) => l.startsWith(`${SABOTAGED} trial 0: turn 1: `))).toBe(true);
  });

  it("trains on BFCL multi-turn in the rehearse paradigm with shadow execution on the embedded node, fidelity per tool", { timeout: 900_000 }, async () => {
    // The shipped tiny model writes no BFCL call: a copy is first fine-tuned on the tasks' first ground-truth call.
    const tasks = loadMultiTurnTasks("multi_turn_base").filter((t) => TRAIN_IDS.includes(t.id));
    warm = await bfclWarmStart(tasks);
    node = await startEmbeddedNode({ env: { NODE_WEIGHTS_DIR: warm.weightsDir } });
    await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
    const w = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, WORKER_CONCURRENCY: "1" });
    workers.push(w);
    const caller = await callerFor(member.headers);
    const small = { temperature: 1, topP: 1, maxTokens: 96 };
    const run = await caller.runs.create({
      name: "bfcl-train",
      config: {
        kind: "train",
        policy: { node: "embedded", model: "tiny-gpt" },
        data: { dataset: "bfcl:multi_turn_base", instanceIds: TRAIN_IDS, instancesPerStep: 2, rolloutsPerInstance: 4 },
        rollout: { paradigm: "rehearse", shadowExecution: true, maxAssistantTurns: 6, maxUserTurns: 2, maxMicroSteps: 16, promptBudgetTokens: 100_000 },
        sampling: { act: small, rehearse: small, evalAct: small, evalRehearse: small },
        optim: { lr: 1e-3 },
        schedule: { steps: 1, saveEvery: 1, evalEvery: 1 },
      },
    });
    const done = await finished(caller, run.id, () => w.output());
    expect(done.error, w.output()).toBeNull();
    expect(done.status).toBe("succeeded");

    // It trained: one update from both roles' rows, the state saved, then an evaluation.
    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: { kind: "asc" }, select: { kind: true, statePath: true, metrics: true } });
    expect(steps.map((x) => x.kind)).toEqual(["eval", "train"]);
    expect(steps[1].statePath).toMatch(/^tinker:\/\//);
    expect((steps[1].metrics as Record<string, number>)["training/num_datums"]).toBeGreaterThan(0);

    // Rehearsed responses entered the conversation; the real back ends' answers were recorded beside them.
    const { items } = await caller.trajectories.list({ runId: run.id, phase: "train", limit: 50 });
    expect(items).toHaveLength(8);
    const rehearsed: { name: string; rehearsed: string | null; real: string | null; fidelity: unknown }[] = [];
    for (const t of items) {
      expect(t.paradigm).toBe("rehearse");
      const detail = await caller.trajectories.get({ id: t.id, turnsLimit: 200 });
      expect(bfclOutcomeOfSummary(detail.trajectory.summary)).toMatchObject({ category: "multi_turn_base", scored: true });
      for (const turn of detail.turns.filter((x) => x.role === "rehearse")) {
        rehearsed.push({ name: (turn.toolCalls as { name: string }).name, rehearsed: turn.rehearsedResponse, real: turn.realResponse, fidelity: turn.fidelity });
      }
    }
    expect(rehearsed.length).toBeGreaterThan(0);
    for (const r of rehearsed) {
      expect(r.rehearsed).not.toBeNull();
      expect(r.real).not.toBeNull();
      expect(r.fidelity).not.toBeNull();
    }
    // Fidelity against the real back ends, per tool, as the run page's world-model view reads it.
    const world = await caller.runs.worldModel({ runId: run.id, phase: "train" });
    expect(world.tools.map((t) => t.tool).sort()).toEqual([...new Set(rehearsed.map((r) => r.name))].sort());
    expect(world.tools.reduce((n, t) => n + t.comparisons, 0)).toBe(rehearsed.length);
  });
});
