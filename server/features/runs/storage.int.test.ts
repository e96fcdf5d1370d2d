/**
 * Turn storage on real Postgres: the turn table partitioned by run (a run's turns in their own table,
 * dropped in O(1) with the run), compressed text, archive to gzip JSON Lines and restore, retention.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, expectTrpcError, prisma, signUp, type TestUser } from "../../../test/helpers";
import { syntheticStep } from "../../../bench/persist";
import { persistStep } from "../../../worker/runner/persist";
import { ensureTurnPartition, hasTurnPartition } from "../../../lib/turn-partitions";
import { archiveExpiredRuns, archiveRunTurns, directoryStore } from "../../../lib/turn-archive";
import { s3Store } from "../../../lib/s3-store";
import { startTestS3Server } from "../../../test/s3-server";

const archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-archive-test-"));
const previousArchiveDir = process.env.ENVACE_ARCHIVE_DIR;

async function runWithTurns(user: TestUser, turns = 200, name = "storage"): Promise<string> {
  const run = await prisma.run.create({
    data: { name, kind: "train", status: "running", workerId: "w-storage", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 1, createdById: user.id },
  });
  await persistStep(prisma, { runId: run.id, workerId: "w-storage", result: syntheticStep(1, turns, 2, 2), phase: "train", startedAt: new Date() });
  return run.id;
}

async function finish(runId: string, finishedAt = new Date()) {
  await prisma.run.update({ where: { id: runId }, data: { status: "succeeded", finishedAt, workerId: null } });
}

/** Every turn of a run, in key order, every column. */
async function turnsOf(runId: string) {
  return prisma.turn.findMany({ where: { runId }, orderBy: [{ trajectoryId: "asc" }, { index: "asc" }] });
}

/** Counts row deletions on the turn table (all partitions), to prove a run's turns went without any. */
async function countTurnRowDeletes() {
  await prisma.$executeRawUnsafe(`create table if not exists turn_delete_probe (n int not null)`);
  await prisma.$executeRawUnsafe(`truncate turn_delete_probe`);
  await prisma.$executeRawUnsafe(
    `create or replace function turn_delete_probe_fn() returns trigger language plpgsql as $$ begin insert into turn_delete_probe values (1); return old; end $$`,
  );
  await prisma.$executeRawUnsafe(`drop trigger if exists turn_delete_probe on turn`);
  await prisma.$executeRawUnsafe(`create trigger turn_delete_probe before delete on turn for each row execute function turn_delete_probe_fn()`);
  return async () => {
    const [{ n }] = await prisma.$queryRawUnsafe<{ n: number }[]>(`select count(*)::int as n from turn_delete_probe`);
    await prisma.$executeRawUnsafe(`drop trigger if exists turn_delete_probe on turn`);
    return n;
  };
}

describe("turn storage", () => {
  let owner: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    process.env.ENVACE_ARCHIVE_DIR = archiveDir;
    owner = await signUp("member");
    other = await signUp("member");
  });
  afterAll(() => {
    if (previousArchiveDir === undefined) delete process.env.ENVACE_ARCHIVE_DIR;
    else process.env.ENVACE_ARCHIVE_DIR = previousArchiveDir;
    fs.rmSync(archiveDir, { recursive: true, force: true });
  });

  it("a step's commit writes the run's turns into the run's own partition, long texts compressed", async () => {
    const runId = await runWithTurns(owner, 120);
    expect(await hasTurnPartition(prisma, runId)).toBe(true);
    const [{ part }] = await prisma.$queryRaw<{ part: string }[]>`select turn_partition_name(${runId}) as part`;
    expect(part).toBe(`turn_p_${runId.replace(/-/g, "")}`);
    const where = await prisma.$queryRaw<{ rel: string; n: number }[]>`
      select tableoid::regclass::text as rel, count(*)::int as n from turn where "runId" = ${runId} group by 1`;
    expect(where).toEqual([{ rel: part, n: 120 }]);
    // A long generation is stored compressed (pglz on the embedded server, lz4 where the server has it).
    await prisma.turn.update({
      where: { runId_trajectoryId_index: { runId, trajectoryId: (await turnsOf(runId))[1]!.trajectoryId, index: 1 } },
      data: { text: "<think>" + "The user wants a refund for the order; check the order status first. ".repeat(60) + "</think>" },
    });
    const [{ method }] = await prisma.$queryRaw<{ method: string | null }[]>`
      select pg_column_compression(text) as method from turn where "runId" = ${runId} and index = 1 and length(text) > 2000 limit 1`;
    expect(["pglz", "lz4"]).toContain(method);
  });

  it("ensure_turn_partition moves rows written before the run had a partition out of the default one", async () => {
    const run = await prisma.run.create({
      data: { name: "late", kind: "train", status: "succeeded", config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 1, createdById: owner.id },
    });
    const t = await prisma.trajectory.create({ data: { runId: run.id, step: 1, instanceId: "i", groupId: "g", rolloutIndex: 0, paradigm: "rehearse", reward: 0, outcome: "failure", terminationReason: "x" } });
    await prisma.turn.createMany({ data: [0, 1, 2].map((index) => ({ runId: run.id, trajectoryId: t.id, index, role: "act", text: `turn ${index}` })) });
    const before = await prisma.$queryRaw<{ rel: string }[]>`select distinct tableoid::regclass::text as rel from turn where "runId" = ${run.id}`;
    expect(before).toEqual([{ rel: "turn_default" }]);
    expect(await ensureTurnPartition(prisma, run.id)).toBe(true);
    expect(await ensureTurnPartition(prisma, run.id)).toBe(false);
    const after = await prisma.$queryRaw<{ rel: string; n: number }[]>`select tableoid::regclass::text as rel, count(*)::int as n from turn where "runId" = ${run.id} group by 1`;
    expect(after).toEqual([{ rel: `turn_p_${run.id.replace(/-/g, "")}`, n: 3 }]);
  });

  it("deleting a finished run drops its turn partition (no row deletes) and leaves other runs' turns alone", async () => {
    const runId = await runWithTurns(owner, 300);
    const keep = await runWithTurns(owner, 80, "kept");
    const caller = await callerFor(owner.headers);
    // Not while it runs, and not by a member who did not launch it.
    await expectTrpcError(caller.runs.delete({ id: runId }), "CONFLICT", /cancel it before deleting/);
    await finish(runId);
    await expectTrpcError((await callerFor(other.headers)).runs.delete({ id: runId }), "FORBIDDEN");

    const deletes = await countTurnRowDeletes();
    const result = await caller.runs.delete({ id: runId });
    expect(result).toEqual({ id: runId, turnPartitionDropped: true });
    expect(await deletes()).toBe(0);
    expect(await hasTurnPartition(prisma, runId)).toBe(false);
    expect(await prisma.run.findUnique({ where: { id: runId } })).toBeNull();
    expect(await prisma.trajectory.count({ where: { runId } })).toBe(0);
    expect(await prisma.turn.count({ where: { runId } })).toBe(0);
    expect(await prisma.turn.count({ where: { runId: keep } })).toBe(80);
  });

  it("archives a finished run's turns to gzip JSON Lines, drops them, and restores them exactly", async () => {
    const runId = await runWithTurns(owner, 240);
    const caller = await callerFor(owner.headers);
    await expectTrpcError(caller.runs.archive({ id: runId }), "CONFLICT", /only a finished run/);
    await finish(runId);
    const original = await turnsOf(runId);

    const archived = await caller.runs.archive({ id: runId });
    expect(archived).toMatchObject({ runId, turns: 240, trajectories: 4, uri: path.join(archiveDir, runId, "turns.jsonl.gz") });
    expect(await hasTurnPartition(prisma, runId)).toBe(false);
    expect(await prisma.turn.count({ where: { runId } })).toBe(0);
    // Trajectories stay browsable in lists; the run says where its turns went.
    expect(await prisma.trajectory.count({ where: { runId } })).toBe(4);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { archiveUri: true, archivedAt: true } })).toMatchObject({ archiveUri: path.join(archiveDir, runId), archivedAt: expect.any(Date) });
    // A trajectory's page says the turns are archived (and has none) until a restore.
    const page = await caller.trajectories.get({ id: original[0]!.trajectoryId });
    expect(page.trajectory.run.archivedAt).toBeInstanceOf(Date);
    expect(page.turns).toEqual([]);
    const lines = zlib.gunzipSync(fs.readFileSync(archived.uri)).toString("utf8").trim().split("\n");
    expect(lines).toHaveLength(240);
    expect(JSON.parse(lines[0]!)).toMatchObject({ runId, trajectoryId: expect.any(String), index: 0, role: expect.any(String), text: expect.any(String) });
    const manifest = JSON.parse(fs.readFileSync(path.join(archiveDir, runId, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({ format: "envace-turns/1", runId, turns: 240, sha256: archived.sha256, bytes: archived.bytes });
    await expectTrpcError(caller.runs.archive({ id: runId }), "CONFLICT", /already archived/);
    // A failed run with archived turns resumes only after a restore (its new steps would sit beside an archive).
    await prisma.run.update({ where: { id: runId }, data: { status: "failed" } });
    await expectTrpcError(caller.runs.resume({ id: runId }), "CONFLICT", /restore them before resuming/);
    await prisma.run.update({ where: { id: runId }, data: { status: "succeeded" } });

    const restored = await caller.runs.restore({ id: runId });
    expect(restored).toEqual({ runId, turns: 240 });
    expect(await turnsOf(runId)).toEqual(original);
    expect((await caller.trajectories.get({ id: original[0]!.trajectoryId })).turns.length).toBeGreaterThan(0);
    expect(await hasTurnPartition(prisma, runId)).toBe(true);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).archivedAt).toBeNull();
    await expectTrpcError(caller.runs.restore({ id: runId }), "CONFLICT", /not archived/);
  });

  it("archives to and restores from an S3-compatible bucket (ENVACE_ARCHIVE_S3_*), every request SigV4-verified", async () => {
    const s3 = await startTestS3Server({ bucket: "envace-archive", accessKeyId: "AKIATEST", secretAccessKey: "s3-secret", region: "us-east-1" });
    const vars = { ENVACE_ARCHIVE_S3_ENDPOINT: s3.url, ENVACE_ARCHIVE_S3_BUCKET: "envace-archive", ENVACE_ARCHIVE_S3_PREFIX: "studio", AWS_ACCESS_KEY_ID: "AKIATEST", AWS_SECRET_ACCESS_KEY: "s3-secret" };
    const previous = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
    Object.assign(process.env, vars);
    try {
      const runId = await runWithTurns(owner, 160);
      await finish(runId);
      const original = await turnsOf(runId);
      const caller = await callerFor(owner.headers);
      const archived = await caller.runs.archive({ id: runId });
      expect(archived).toMatchObject({ runId, turns: 160, uri: `s3://envace-archive/studio/${runId}/turns.jsonl.gz` });
      const object = s3.objects.get(`studio/${runId}/turns.jsonl.gz`)!;
      expect(zlib.gunzipSync(object).toString("utf8").trim().split("\n")).toHaveLength(160);
      expect(JSON.parse(s3.objects.get(`studio/${runId}/manifest.json`)!.toString("utf8"))).toMatchObject({ runId, turns: 160, sha256: archived.sha256 });
      expect(await hasTurnPartition(prisma, runId)).toBe(false);
      expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).archiveUri).toBe(`s3://envace-archive/studio/${runId}`);
      // The file was read back from the bucket (the checksum's source) before the partition went.
      expect(s3.log.filter((l) => l.key === `studio/${runId}/turns.jsonl.gz`).map((l) => l.method)).toEqual(["PUT", "GET"]);
      expect(s3.log.every((l) => l.status < 300)).toBe(true);
      expect(await caller.runs.restore({ id: runId })).toEqual({ runId, turns: 160 });
      expect(await turnsOf(runId)).toEqual(original);

      // A bucket that hands back damaged bytes: the read-back check fails, nothing is dropped, the bad object is removed.
      const damaged = await runWithTurns(owner, 80);
      await finish(damaged);
      s3.corruptGetAt = 40;
      await expect(archiveRunTurns(prisma, damaged, { store: s3Store({ endpoint: s3.url, bucket: "envace-archive", region: "us-east-1", prefix: "studio", credentials: { accessKeyId: "AKIATEST", secretAccessKey: "s3-secret" } }) })).rejects.toThrow(/could not be read back|read back/);
      expect(await prisma.turn.count({ where: { runId: damaged } })).toBe(80);
      expect(await hasTurnPartition(prisma, damaged)).toBe(true);
      expect((await prisma.run.findUniqueOrThrow({ where: { id: damaged } })).archivedAt).toBeNull();
      expect(s3.objects.has(`studio/${damaged}/turns.jsonl.gz`)).toBe(false);
      expect(s3.objects.has(`studio/${damaged}/manifest.json`)).toBe(false);
    } finally {
      for (const [k, v] of Object.entries(previous)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await s3.close();
    }
  });

  it("refuses to restore an archive that does not match its manifest, and keeps the run archived", async () => {
    const runId = await runWithTurns(owner, 60);
    await finish(runId);
    const caller = await callerFor(owner.headers);
    const archived = await caller.runs.archive({ id: runId });
    const lines = zlib.gunzipSync(fs.readFileSync(archived.uri)).toString("utf8").trim().split("\n");
    fs.writeFileSync(archived.uri, zlib.gzipSync(lines.slice(1).join("\n") + "\n"));
    await expectTrpcError(caller.runs.restore({ id: runId }), "CONFLICT", /does not match its manifest/);
    expect(await prisma.turn.count({ where: { runId } })).toBe(0);
    expect((await prisma.run.findUniqueOrThrow({ where: { id: runId } })).archivedAt).not.toBeNull();
  });

  it("the retention sweep archives a finished run's turns once its retainTurnsDays have passed", async () => {
    const runId = await runWithTurns(owner, 40);
    const finishedAt = new Date("2026-11-01T00:00:00Z");
    await finish(runId, finishedAt);
    const caller = await callerFor(owner.headers);
    await expect(caller.runs.retention({ id: runId, retainTurnsDays: 3 })).resolves.toMatchObject({ id: runId, retainTurnsDays: 3 });
    await expectTrpcError(caller.runs.retention({ id: runId, retainTurnsDays: -1 }), "BAD_REQUEST", /0 or more/);
    const store = directoryStore(archiveDir);
    const early = await archiveExpiredRuns(prisma, { store, now: new Date("2026-11-03T23:59:00Z") });
    expect(early.archived).not.toContain(runId);
    expect(await prisma.turn.count({ where: { runId } })).toBe(40);
    const due = await archiveExpiredRuns(prisma, { store, now: new Date("2026-11-04T00:00:00Z") });
    expect(due.archived).toContain(runId);
    expect(await prisma.turn.count({ where: { runId } })).toBe(0);
    // Archived once: the next sweep leaves it.
    expect((await archiveExpiredRuns(prisma, { store, now: new Date("2026-11-05T00:00:00Z") })).archived).not.toContain(runId);
  });
});
