/** The worker's sweep archives a finished run's turns once the run's retention (retainTurnsDays) has passed. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { eventually, prisma, signUp } from "../../test/helpers";
import { syntheticStep } from "../../bench/persist";
import { persistStep } from "./persist";
import { RunWorker } from "./worker";

const databaseUrl = inject("databaseUrl");

describe("turn retention in the worker's sweep", () => {
  const archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-retention-"));
  const previous = process.env.ENVACE_ARCHIVE_DIR;
  let worker: RunWorker | undefined;
  afterAll(async () => {
    await worker?.stop();
    if (previous === undefined) delete process.env.ENVACE_ARCHIVE_DIR;
    else process.env.ENVACE_ARCHIVE_DIR = previous;
    fs.rmSync(archiveDir, { recursive: true, force: true });
  });

  it("archives a run retained 0 days, and leaves a run without retention and a run still within it", async () => {
    process.env.ENVACE_ARCHIVE_DIR = archiveDir;
    const user = await signUp("member");
    const make = async (name: string, retainTurnsDays: number | null, finishedAt: Date) => {
      const run = await prisma.run.create({
        data: { name, kind: "train", status: "running", workerId: "w-ret", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 1, createdById: user.id },
      });
      await persistStep(prisma, { runId: run.id, workerId: "w-ret", result: syntheticStep(1, 50, 1, 2), phase: "train", startedAt: new Date() });
      await prisma.run.update({ where: { id: run.id }, data: { status: "succeeded", workerId: null, finishedAt, retainTurnsDays } });
      return run.id;
    };
    const expired = await make("expired", 0, new Date(Date.now() - 1000));
    const kept = await make("kept", null, new Date(Date.now() - 86_400_000 * 400));
    const within = await make("within", 30, new Date());

    worker = new RunWorker({ prisma, databaseUrl, selectExecutor: () => async () => {}, concurrency: 1, sweepMs: 200, retentionEveryMs: 0, workerId: "w-retention", logger: () => {} });
    await worker.start();
    await eventually(async () => (await prisma.run.findUniqueOrThrow({ where: { id: expired } })).archivedAt, 30_000, "the expired run archived");
    expect(await prisma.turn.count({ where: { runId: expired } })).toBe(0);
    expect(fs.existsSync(path.join(archiveDir, expired, "turns.jsonl.gz"))).toBe(true);
    expect(await prisma.turn.count({ where: { runId: kept } })).toBe(50);
    expect(await prisma.turn.count({ where: { runId: within } })).toBe(50);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: within } })).archivedAt).toBeNull();
  });
});
