import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { existsSync, promises as fs } from "node:fs";
import { inject } from "vitest";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { RunWorker } from "./worker";
import { DEFAULT_WEIGHTS_DIR, startNode } from "../node/server";
import { nodeCheckExecutor } from "./executors/node-check";
import { evalExecutor } from "./executors/eval";
import { trainExecutor } from "./executors/train";
import { insertRun, validRunConfig } from "../../server/features/runs/service";
import { registerCheckedNode } from "../../test/fixtures/doctor-report";
import { retailDataFiles } from "../../lib/tau2/tasks";
import type { Executor } from "./context";

const databaseUrl = inject("databaseUrl");

describe("run worker against real Postgres and pg-boss", () => {
  let member: TestUser;
  const workers: RunWorker[] = [];
  const executions = new Map<string, string[]>();

  /** Records which worker executed which run, then reports two steps of progress. */
  const countingExecutor: Executor = async (ctx) => {
    executions.set(ctx.runId, [...(executions.get(ctx.runId) ?? []), ctx.workerId]);
    for (let step = 1; step <= 2; step++) {
      await new Promise((r) => setTimeout(r, 150));
      await ctx.progress(step, 2);
    }
  };

  async function startWorker(executor: Executor, id: string) {
    const w = new RunWorker({
      prisma,
      databaseUrl,
      selectExecutor: () => executor,
      concurrency: 2,
      heartbeatMs: 200,
      sweepMs: 500,
      pollingIntervalSeconds: 0.5,
      workerId: id,
      logger: () => {},
    });
    await w.start();
    workers.push(w);
    return w;
  }

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    await registerCheckedNode(prisma); // the embedded node the configs name (nothing answers at its URL)
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });
  afterAll(async () => {
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("runs each job exactly once across concurrent workers and reports progress", async () => {
    await startWorker(countingExecutor, "w-a");
    await startWorker(countingExecutor, "w-b");
    const caller = await callerFor(member.headers);
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => caller.runs.create({ name: `c-${i}`, config: {} })));
    for (const run of runs) {
      const done = await eventually(async () => {
        const r = await caller.runs.get({ id: run.id });
        return r.status === "succeeded" ? r : null;
      }, 30_000, `run ${run.id} to succeed`);
      expect(done.progressStep).toBe(2);
      expect(done.totalSteps).toBe(2);
      expect(done.attempts).toBe(1);
      expect(executions.get(run.id)).toHaveLength(1);
    }
    const usedWorkers = new Set(runs.map((r) => executions.get(r.id)![0]));
    expect(usedWorkers.size).toBeGreaterThanOrEqual(1);
  });

  it("honours cancel within a few seconds", async () => {
    const waitForCancel: Executor = async (ctx) => {
      await ctx.progress(1, 100);
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    };
    await startWorker(waitForCancel, "w-cancel");
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "long", config: {} });
    await eventually(async () => (await caller.runs.get({ id: run.id })).status === "running", 15_000, "running");
    const requestedAt = Date.now();
    await caller.runs.cancel({ id: run.id });
    await eventually(async () => (await caller.runs.get({ id: run.id })).status === "cancelled", 5_000, "cancelled");
    expect(Date.now() - requestedAt).toBeLessThan(5_000);
    const logs = (await caller.runs.logs({ runId: run.id })).map((l) => l.message);
    expect(logs).toEqual(expect.arrayContaining([expect.stringMatching(/cancel requested/), "run cancelled"]));
  });

  it("recovers a run whose worker died mid-job, on another worker", async () => {
    let firstAttemptStarted = false;
    const hang: Executor = async (ctx) => {
      firstAttemptStarted = true;
      await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
      throw new Error("worker stopping");
    };
    const dying = await startWorker(hang, "w-dying");
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "orphan", config: {} });
    await eventually(async () => firstAttemptStarted, 15_000, "first attempt");
    // Simulate a crash: the worker stops without finishing the run; its heartbeat stops too.
    await dying.stop();
    workers.splice(workers.indexOf(dying), 1);
    expect((await caller.runs.get({ id: run.id })).status).toBe("running");

    await startWorker(countingExecutor, "w-rescuer");
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" ? r : null;
    }, 30_000, "recovered run to succeed");
    expect(done.attempts).toBe(2);
    expect(executions.get(run.id)).toEqual(["w-rescuer"]);
    const logs = (await caller.runs.logs({ runId: run.id })).map((l) => l.message);
    expect(logs.some((m) => /worker lost/.test(m))).toBe(true);
  });

  it("fails a run whose policy node does not answer, naming the node", async () => {
    await startWorker(nodeCheckExecutor, "w-nodes");
    const caller = await callerFor(member.headers);
    // Queued while the node was there (the launch check refuses an unregistered one); removed since.
    const run = await prisma.$transaction((tx) => insertRun(tx, member.id, { name: "no-node", tags: [] }, validRunConfig({ policy: { node: "ghost", model: "m" } })));
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "failed" ? r : null;
    }, 20_000, "failed");
    expect(done.error).toMatch(/node "ghost" \(policy\) is not registered/);
  });

  it("runs the launch check again before the first step: what changed since the launch fails the run with the API's words", async () => {
    await startWorker((ctx) => (ctx.config.kind === "eval" ? evalExecutor(ctx) : trainExecutor(ctx)), "w-check");
    const caller = await callerFor(member.headers);
    const task = { id: "tea", instruction: "What does tea cost?", checklist: [{ question: "Looked it up", check: { type: "tool_called", name: "get_item" } }] };
    await caller.datasets.import({ name: "vanishing", text: `${JSON.stringify(task)}\n` });
    const run = await caller.runs.create({ name: "dataset-gone", config: { data: { dataset: "dataset:vanishing", instancesPerStep: 1 }, rollout: { shadowExecution: false }, schedule: { steps: 1 } } });
    await prisma.dataset.delete({ where: { name: "vanishing" } });
    const failed = async (id: string) =>
      eventually(async () => {
        const r = await caller.runs.get({ id });
        return r.status === "failed" || r.status === "succeeded" ? r : null;
      }, 30_000, "the run to end");
    let done = await failed(run.id);
    expect(done.status).toBe("failed");
    expect(done.error).toBe('cannot run: data.dataset: no imported dataset "vanishing" (import it on the Datasets page, then refer to it by id or name)');
    expect(await prisma.step.count({ where: { runId: run.id } })).toBe(0);

    // tau2 retail with its user simulator on a node whose doctor has since found a 1,024-token context.
    if (!existsSync(retailDataFiles({ required: [] }).userGuidelines)) return;
    const user = await registerCheckedNode(prisma, "user-sim", ["tiny-gpt"], { kind: "embedded" });
    const tau2 = await caller.runs.create({ name: "user-too-small", config: { kind: "eval", data: { dataset: "tau2:retail", instanceIds: ["0"] }, rollout: { userSimulator: { node: "user-sim", model: "tiny-gpt" } } } });
    const stored = await prisma.nodeDoctorReport.findFirstOrThrow({ where: { nodeId: user.id } });
    const report = stored.report as { facts: Record<string, unknown> };
    await prisma.nodeDoctorReport.update({ where: { id: stored.id }, data: { report: { ...report, facts: { ...report.facts, contextLength: 1024, renderer: "tiny-gpt" } } as never } });
    done = await failed(tau2.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/^cannot run: rollout\.userSimulator\.node: tau2:retail user-simulator prompts need ≥ 2,073 tokens; node "user-sim" \/ tiny-gpt has 1,024 /);
  });

  it("runs the node doctor before the run and records the report, against a node speaking both protocols", async () => {
    // The real embedded node (tiny-gpt weights), in-process: the doctor samples through it.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "worker-node-"));
    const node = await startNode({ port: 0, host: "127.0.0.1", dataDir, warmStartDir: DEFAULT_WEIGHTS_DIR, seed: 1 });
    try {
      const caller = await callerFor(member.headers);
      // A node whose URL no admin vouched for (a member added it before nodes became admin-only): the
      // server does not probe it for a member's launch, so the worker's check is the first.
      await prisma.node.create({ data: { name: "local", kind: "embedded", baseUrl: node.url, createdById: member.id } });
      await startWorker(nodeCheckExecutor, "w-nodes-ok");
      const run = await caller.runs.create({ name: "check", config: { policy: { node: "local", model: "tiny-gpt" } } });
      const done = await eventually(async () => {
        const r = await caller.runs.get({ id: run.id });
        return r.status === "succeeded" || r.status === "failed" ? r : null;
      }, 60_000, "finished");
      expect(done.error).toBeNull();
      expect(done.status).toBe("succeeded");
      const row = await prisma.node.findUniqueOrThrow({ where: { name: "local" }, include: { doctorReports: true } });
      expect(row.health).toBe("healthy");
      expect(row.models).toEqual(["tiny-gpt"]);
      expect(row.doctorReports.map((r) => [r.model, r.ok, r.checkedBy])).toEqual([["tiny-gpt", true, "worker"]]);
      const logs = (await caller.runs.logs({ runId: run.id })).map((l) => l.message);
      expect(logs.some((m) => /^node "local" \(policy\) passed the node doctor in \d+ ms for "tiny-gpt"$/.test(m))).toBe(true);

      // A second run moments later reuses that report: the node is probed once, not per run.
      const checkedAt = row.doctorReports[0]!.checkedAt;
      const again = await caller.runs.create({ name: "check-again", config: { policy: { node: "local", model: "tiny-gpt" } } });
      await eventually(async () => ((await caller.runs.get({ id: again.id })).status === "succeeded" ? true : null), 60_000, "second check");
      const againLogs = (await caller.runs.logs({ runId: again.id })).map((l) => l.message);
      expect(againLogs.some((m) => /^node "local" \(policy\) passed the node doctor \d+ s ago for "tiny-gpt"$/.test(m))).toBe(true);
      expect((await prisma.nodeDoctorReport.findFirstOrThrow({ where: { nodeId: row.id } })).checkedAt).toEqual(checkedAt);
    } finally {
      await node.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
