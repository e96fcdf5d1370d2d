/**
 * A restart of the policy node in the middle of a step, with a real worker process and the real
 * embedded node: the worker logs that the node went away, waits for it, retries the step from the
 * last committed state, and the run finishes with every step exactly once. With the node down for
 * longer than its restarts.waitS, the run shows "waiting for node …" and then fails naming the node
 * and the cause.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { startEmbeddedNode, startWorkerProcess, type Child } from "../../test/processes";
import { tinyTraining } from "../../test/fixtures/tiny-training";

const databaseUrl = inject("databaseUrl");

describe("policy node restarts", () => {
  let member: TestUser;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let worker: Child;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    node = await startEmbeddedNode();
    await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
    worker = startWorkerProcess(databaseUrl);
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await node?.kill("SIGKILL");
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  const trainedSteps = async (runId: string) => prisma.step.count({ where: { runId, kind: "train" } });

  it("retries the step in flight from the last committed state once the restarted node answers", { timeout: 900_000 }, async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "node-restart", config: tinyTraining({ steps: 3 }) });
    await eventually(async () => (await trainedSteps(run.id)) >= 1, 300_000, `step 1 committed\n${worker.output()}`);
    // Step 2 is in flight: the node dies and comes back on the same port and data directory (its saved
    // states survive; the session, the model and the pending results of step 2 do not).
    await node.kill("SIGKILL");
    expect(await trainedSteps(run.id)).toBe(1);
    await new Promise((r) => setTimeout(r, 6000));
    node = await startEmbeddedNode({ port: node.port, dataDir: node.dataDir });

    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 600_000, `the run to finish\n${worker.output()}`);
    expect(done.error, worker.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(1); // the same worker carried on: no crash, no recovery
    expect(done.statusDetail).toBeNull();

    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: [{ kind: "asc" }, { index: "asc" }], select: { kind: true, index: true } });
    expect(steps.map((s) => `${s.kind}:${s.index}`)).toEqual(["eval:3", "train:1", "train:2", "train:3"]);
    const trajectories = await prisma.trajectory.groupBy({ by: ["step", "phase"], where: { runId: run.id }, _count: true, orderBy: [{ phase: "asc" }, { step: "asc" }] });
    expect(trajectories.map((t) => [t.phase, t.step, t._count])).toEqual([["eval", 3, 4], ["train", 1, 4], ["train", 2, 4], ["train", 3, 4]]);
    // The retried step was not committed with generations the outage broke.
    const failed = await prisma.turn.count({ where: { trajectory: { runId: run.id, step: 2 }, errorCode: "GENERATION_FAILED" } });
    expect(failed).toBe(0);

    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    const interrupted = logs.find((m) => m.startsWith('node "embedded": step 2 (training) interrupted:'));
    expect(interrupted, logs.join("\n")).toBeDefined();
    expect(interrupted).toMatch(/retrying from the committed state of step 1 \(retry 1 of 3\)/);
    expect(logs.some((m) => /^node "embedded" answers.*; retrying step 2 \(training\) from the committed state of step 1$/.test(m))).toBe(true);
  });

  it("fails naming the node and the cause when the node stays down longer than its wait", { timeout: 900_000 }, async () => {
    await prisma.node.update({ where: { name: "embedded" }, data: { settings: { restarts: { waitS: 10, stepRetries: 3 } } } });
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "node-gone", config: tinyTraining({ steps: 3 }) });
    await eventually(async () => (await trainedSteps(run.id)) >= 1, 300_000, `step 1 committed\n${worker.output()}`);
    await node.kill("SIGKILL");

    // The run page says what the run is waiting for.
    const waiting = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "running" && r.statusDetail ? r.statusDetail : null;
    }, 120_000, "the run to show that it waits for the node");
    expect(waiting).toMatch(/^waiting for node "embedded"/);

    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 300_000, `the run to fail\n${worker.output()}`);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/^node "embedded" did not answer (for|within) 10 s/);
    expect(done.error).toMatch(/ECONNREFUSED|unreachable/);
    expect(done.statusDetail).toBeNull();
    expect(await trainedSteps(run.id)).toBe(1);
    const logs = (await caller.runs.logs({ runId: run.id, limit: 2000 })).map((l) => l.message);
    expect(logs.some((m) => /^node "embedded" is not answering .*; waiting for it up to 10 s$/.test(m) || /^node "embedded": step 2 \(training\) interrupted/.test(m))).toBe(true);
  });
});
