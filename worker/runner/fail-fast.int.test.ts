/**
 * Fail fast end to end: a run whose node returns token ids outside the vocabulary the run renders for
 * never trains on them. The node is the real embedded node (tiny-gpt, 264 byte-level ids); the node's
 * settings make the run render for a 31-id character tokenizer (test/fixtures/renderers/tiny-charset),
 * as if the node served another model. The node doctor's tokenizer check catches it: at launch when the
 * launching user may probe the node (runs.create refuses), else in the worker before the first step
 * (the run fails naming the check); no step is ever committed.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { spawnTsx, startEmbeddedNode, type Child } from "../../test/processes";

const databaseUrl = inject("databaseUrl");
const tokenizerDir = path.resolve(import.meta.dirname, "../../test/fixtures/renderers/tiny-charset");

const config: RunConfigInput = {
  kind: "train",
  policy: { node: "mismatched", model: "tiny-gpt" },
  data: { dataset: "builtin:shop", instancesPerStep: 2, rolloutsPerInstance: 2, seed: 3 },
  rollout: { paradigm: "rehearse", maxAssistantTurns: 2, maxUserTurns: 1, maxMicroSteps: 4, promptBudgetTokens: 1024, responseBudgetTokens: 32 },
  sampling: {
    act: { temperature: 1, topP: 1, maxTokens: 32 },
    rehearse: { temperature: 1, topP: 1, maxTokens: 32 },
    evalAct: { temperature: 1, topP: 1, maxTokens: 32 },
    evalRehearse: { temperature: 1, topP: 1, maxTokens: 32 },
  },
  schedule: { steps: 2, saveEvery: 10, evalEvery: 10 },
};

describe("a run against a node whose ids do not fit the run's renderer", () => {
  let member: TestUser;
  let other: TestUser;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let worker: Child;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    other = await signUp("member");
    node = await startEmbeddedNode();
    const settings = { models: { "tiny-gpt": { renderer: "hf", tokenizer: tokenizerDir } } };
    // Registered by the system: any member may have the server probe it.
    await prisma.node.create({ data: { name: "mismatched", kind: "embedded", baseUrl: node.url, settings } });
    // Added by another member: the server does not probe it for this member; the worker does.
    await prisma.node.create({ data: { name: "mismatched-own", kind: "embedded", baseUrl: node.url, settings, createdById: other.id } });
    worker = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, WORKER_CONCURRENCY: "1" });
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await node?.kill("SIGKILL");
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  const vocabulary = /tokenizer mismatch: node "mismatched(-own)?" returned ids outside the tiny-charset vocabulary \(.*valid ids are 0–30, renderer "hf:.*tiny-charset"\) — the node's model does not use this renderer's tokenizer/;

  it("refuses the launch naming the node, the tokenizer check and the vocabulary", async () => {
    const caller = await callerFor(member.headers);
    const before = await prisma.run.count();
    const err = await caller.runs.create({ name: "garbage-ids", config }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^cannot launch: policy\.node: node "mismatched" \(policy, model "tiny-gpt"\) failed the node doctor's tokenizer check/);
    expect(err?.message).toMatch(vocabulary);
    expect(await prisma.run.count()).toBe(before);
  });

  it("a run the server could not check fails in the worker's doctor before any step, with no step committed", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "garbage-ids-own", config: { ...config, policy: { node: "mismatched-own", model: "tiny-gpt" } } });
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 240_000, `run to finish\n${worker.output()}`);
    expect(done.status, worker.output()).toBe("failed");
    expect(done.error).toMatch(/node "mismatched-own" \(policy, model "tiny-gpt"\) failed the node doctor's tokenizer check/);
    expect(done.error).toMatch(vocabulary);
    expect(await prisma.step.count({ where: { runId: run.id } })).toBe(0);
    const report = await prisma.nodeDoctorReport.findFirstOrThrow({ where: { node: { name: "mismatched-own" } } });
    expect(report).toMatchObject({ model: "tiny-gpt", ok: false, checkedBy: "worker" });
  });
});
