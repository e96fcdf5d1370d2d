/**
 * Fail fast end to end: a run whose node returns token ids outside the vocabulary the run renders for
 * fails with a message naming the cause, and commits no step. The node is the real embedded node
 * (tiny-gpt, 264 byte-level ids); the node's settings make the run render for a 31-id character
 * tokenizer (test/fixtures/renderers/tiny-charset), as if the node served another model.
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
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let worker: Child;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    node = await startEmbeddedNode();
    await prisma.node.create({
      data: { name: "mismatched", kind: "embedded", baseUrl: node.url, settings: { models: { "tiny-gpt": { renderer: "hf", tokenizer: tokenizerDir } } } },
    });
    worker = spawnTsx("worker/main.ts", { DATABASE_URL: databaseUrl, ENVACE_SECRET: process.env.ENVACE_SECRET, WORKER_CONCURRENCY: "1" });
  });
  afterAll(async () => {
    await worker?.kill("SIGKILL");
    await node?.kill("SIGKILL");
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("fails the run naming the vocabulary, with no step committed", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "garbage-ids", config });
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 240_000, `run to finish\n${worker.output()}`);
    expect(done.status, worker.output()).toBe("failed");
    expect(done.error).toMatch(/^training step 1: node "mismatched", model "tiny-gpt": node returned token ids outside the tiny-charset vocabulary \(.*valid ids are 0–30, renderer "hf:.*tiny-charset"\) — is the node's model the one this run renders for\?$/);
    expect(await prisma.step.count({ where: { runId: run.id } })).toBe(0);
    const logs = (await caller.runs.logs({ runId: run.id, limit: 100 })).map((l) => l.message);
    expect(logs.some((m) => m.includes("outside the tiny-charset vocabulary"))).toBe(true);
  });
});
