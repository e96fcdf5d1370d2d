/**
 * Train, then evaluate the trained policy, end to end on the real embedded node (its own process and data
 * directory), a real worker process and real Postgres: a 2-step training run saves a checkpoint; an
 * evaluation of it with `repeats: 2` samples it through a sampling session on its sampler path (the node
 * names the path), in two independently seeded passes; a checkpoint and the base model sample differently
 * for the same seed while the same checkpoint and seed sample the same again, after the node restarted
 * (its checkpoints persist in its data directory); and a checkpoint the node loses mid-evaluation fails
 * the evaluation with the cause, marks the checkpoint deleted, and later launches of it are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { callerFor, eventually, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { startEmbeddedNode, startWorkerProcess, type Child } from "../../test/processes";

const databaseUrl = inject("databaseUrl");

const limits = { maxAssistantTurns: 2, maxUserTurns: 2, maxMicroSteps: 6, promptBudgetTokens: 1024, responseBudgetTokens: 48 };
const sampling = { temperature: 1, topP: 1, maxTokens: 48 };

const tinyTraining: RunConfigInput = {
  kind: "train",
  policy: { node: "embedded", model: "tiny-gpt" },
  data: { dataset: "builtin:shop", instancesPerStep: 2, rolloutsPerInstance: 2, seed: 7 },
  rollout: { paradigm: "rehearse", shadowExecution: true, ...limits },
  sampling: { act: sampling, rehearse: sampling, evalAct: sampling, evalRehearse: sampling },
  // The entropy bonus has a gradient whatever the rewards: two steps surely change the weights (the tiny model's
  // first rollouts may all score the same, leaving every advantage 0).
  optim: { lr: 3e-3, entropyCoef: 1 },
  schedule: { steps: 2, saveEvery: 2, evalEvery: 100 },
};

/**
 * An evaluation of the shop's test split: 2 tasks, one rollout at a time. Sampled hot: the warm-started tiny
 * model is confident enough that at temperature 1 its first 48 tokens hardly depend on the seed.
 */
const hot = { temperature: 2.5, topP: 1, maxTokens: 48 };
const evaluation = (policy: RunConfigInput["policy"], extra: Partial<RunConfigInput> = {}): RunConfigInput => ({
  kind: "eval",
  policy,
  data: { dataset: "builtin:shop", split: "test", instancesPerStep: 2, seed: 5 },
  rollout: { paradigm: "environment", ...limits, maxConcurrentRollouts: 1 },
  sampling: { evalAct: hot, evalRehearse: hot },
  ...extra,
});

describe("evaluating a trained checkpoint on the embedded node", () => {
  let member: TestUser;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let worker: Child;
  let trainName: string;

  const finished = async (id: string, timeoutMs = 300_000) => {
    const caller = await callerFor(member.headers);
    return eventually(async () => {
      const r = await caller.runs.get({ id });
      return r.status === "succeeded" || r.status === "failed" || r.status === "cancelled" ? r : null;
    }, timeoutMs, `run ${id} to finish\n${worker.output()}`);
  };
  const logsOf = async (runId: string) => (await (await callerFor(member.headers)).runs.logs({ runId, limit: 2000 })).map((l) => l.message);
  /** The act texts of an evaluation's trajectories, task by task. */
  const actTexts = async (runId: string) => {
    const rows = await prisma.trajectory.findMany({ where: { runId, phase: "eval" }, orderBy: [{ step: "asc" }, { instanceId: "asc" }], select: { turns: { where: { role: "act" }, orderBy: { index: "asc" }, select: { text: true } } } });
    return rows.map((r) => r.turns.map((t) => t.text).join("\n"));
  };

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

  it("a 2-step training run saves a checkpoint; an evaluation of it with repeats 2 samples the checkpoint in two seeded passes", async () => {
    const caller = await callerFor(member.headers);
    trainName = "tiny-train-ckpt";
    const train = await caller.runs.create({ name: trainName, config: tinyTraining });
    expect((await finished(train.id)).error).toBeNull();
    const [checkpoint] = await prisma.checkpoint.findMany({ where: { runId: train.id }, select: { id: true, step: true, samplerPath: true } });
    expect(checkpoint).toMatchObject({ step: 2, samplerPath: expect.stringMatching(/^tinker:\/\/.+\/sampler_weights\//) });

    const run = await caller.runs.create({ name: "eval of the checkpoint", config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: trainName, step: "latest" } }, { repeats: 2 }) });
    expect(run.evaluatedCheckpoint).toMatchObject({ id: checkpoint!.id, step: 2 });
    const done = await finished(run.id);
    expect(done.error, worker.output()).toBeNull();
    expect(done.status).toBe("succeeded");
    // Episodes of both passes count: 2 tasks × 2 passes.
    expect([done.progressStep, done.totalSteps]).toEqual([4, 4]);

    const steps = await prisma.step.findMany({ where: { runId: run.id }, orderBy: { index: "asc" }, select: { kind: true, index: true } });
    expect(steps.map((s) => `${s.kind}:${s.index}`)).toEqual(["eval:1", "eval:2"]);
    const perPass = await prisma.trajectory.groupBy({ by: ["step"], where: { runId: run.id, phase: "eval" }, _count: true, orderBy: { step: "asc" } });
    expect(perPass.map((p) => [p.step, p._count])).toEqual([[1, 2], [2, 2]]);

    // The node itself named the checkpoint's path as what the sampling session samples.
    const logs = await logsOf(run.id);
    const sampled = logs.find((m) => m.startsWith(`sampling the checkpoint of run "${trainName}" at step 2: node "embedded" sampling session `));
    expect(sampled, logs.join("\n")).toBeDefined();
    expect(sampled!.endsWith(` samples ${checkpoint!.samplerPath}`)).toBe(true);
    expect(logs.filter((m) => /^pass [12]\/2 \(seed \d+\): /.test(m))).toHaveLength(2);
    expect(logs.some((m) => /^Avg@2 over 2 passes: /.test(m))).toBe(true);
    // Two passes with two seeds: their samples differ.
    const texts = await actTexts(run.id);
    expect(texts.slice(0, 2)).not.toEqual(texts.slice(2, 4));

    // The training run lists its evaluation.
    expect((await caller.runs.checkpointEvaluations({ runId: train.id })).map((e) => [e.id, e.step])).toEqual([[run.id, 2]]);
  });

  it("the checkpoint and the base model sample differently for the same seed; the same checkpoint and seed sample the same again after the node restarts", async () => {
    const caller = await callerFor(member.headers);
    const ckpt = await caller.runs.create({ name: "checkpoint, seed 5", config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: trainName } }) });
    const base = await caller.runs.create({ name: "base model, seed 5", config: evaluation({ node: "embedded", model: "tiny-gpt" }) });
    for (const r of [ckpt, base]) expect((await finished(r.id)).error, worker.output()).toBeNull();
    const [ckptTexts, baseTexts] = [await actTexts(ckpt.id), await actTexts(base.id)];
    expect(ckptTexts).toHaveLength(2);
    expect(ckptTexts).not.toEqual(baseTexts);

    // The node restarts on its data directory: the checkpoint is still there, and samples as before.
    await node.kill("SIGTERM");
    node = await startEmbeddedNode({ port: node.port, dataDir: node.dataDir });
    const again = await caller.runs.create({ name: "checkpoint, seed 5, after a restart", config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: trainName } }) });
    expect((await finished(again.id)).error, worker.output()).toBeNull();
    expect(await actTexts(again.id)).toEqual(ckptTexts);
  });

  it("passes are committed resume-safely: a worker killed mid-evaluation loses and duplicates no pass", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "passes, killed", config: evaluation({ node: "embedded", model: "tiny-gpt" }, { repeats: 4, data: { dataset: "builtin:shop", split: "test", instancesPerStep: 4, seed: 5 } }) });
    await eventually(async () => (await prisma.step.count({ where: { runId: run.id } })) >= 1, 300_000, `a committed pass\n${worker.output()}`);
    await worker.kill("SIGKILL");
    const atKill = await prisma.step.count({ where: { runId: run.id } });
    expect(atKill, "every pass was committed before the kill: the test proves nothing").toBeLessThan(4);
    worker = startWorkerProcess(databaseUrl);
    const done = await finished(run.id);
    expect(done.error, worker.output()).toBeNull();
    expect(done.attempts).toBe(2);
    expect((await prisma.step.findMany({ where: { runId: run.id }, orderBy: { index: "asc" }, select: { index: true } })).map((s) => s.index)).toEqual([1, 2, 3, 4]);
    const perPass = await prisma.trajectory.groupBy({ by: ["step"], where: { runId: run.id }, _count: true, orderBy: { step: "asc" } });
    expect(perPass.map((p) => [p.step, p._count])).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
    const logs = await logsOf(run.id);
    expect(logs.some((m) => new RegExp(`^resuming: passes [\\d, ]+ are committed; ${4 - atKill} to go$`).test(m)), logs.join("\n")).toBe(true);
  });

  it("a checkpoint the node loses mid-evaluation fails the evaluation with the cause; later launches of it are refused", async () => {
    const caller = await callerFor(member.headers);
    const checkpoint = await prisma.checkpoint.findFirstOrThrow({ where: { run: { name: trainName } }, select: { id: true, samplerPath: true } });
    const run = await caller.runs.create({ name: "eval, checkpoint lost", config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: trainName } }, { repeats: 6 }) });
    await eventually(async () => (await prisma.step.count({ where: { runId: run.id, kind: "eval" } })) >= 1, 300_000, `a committed pass\n${worker.output()}`);
    // Someone deletes the sampler weights on the node (as `tinker checkpoint delete` would).
    const m = /^tinker:\/\/([^/]+)\/sampler_weights\/([^/]+)$/.exec(checkpoint.samplerPath)!;
    const del = await fetch(`${node.url}/api/v1/training_runs/${m[1]}/checkpoints/sampler_weights/${m[2]}`, { method: "DELETE" });
    expect(del.status).toBe(204);

    const done = await finished(run.id);
    expect(done.status).toBe("failed");
    expect(done.error).toContain(`the checkpoint of run "${trainName}" at step 2 (${checkpoint.samplerPath}) is no longer on node "embedded": `);
    expect(done.error).toContain(`no weights at ${checkpoint.samplerPath}`);
    // Nothing of the interrupted pass was committed.
    const committed = await prisma.step.count({ where: { runId: run.id } });
    expect(committed).toBeLessThan(6);
    expect(await prisma.trajectory.count({ where: { runId: run.id } })).toBe(committed * 2);

    const marked = await prisma.checkpoint.findUniqueOrThrow({ where: { id: checkpoint.id }, select: { deletedAt: true, deletedReason: true } });
    expect(marked.deletedAt).not.toBeNull();
    expect(marked.deletedReason).toContain(`missing on node "embedded" when evaluation ${run.id} opened it`);
    await expectTrpcError(caller.runs.create({ name: "again", config: evaluation({ node: "embedded", model: "tiny-gpt", checkpoint: { run: trainName } }) }), "BAD_REQUEST", /the latest checkpoint of run "tiny-train-ckpt" \(step 2\) was deleted on/);
  });
});
