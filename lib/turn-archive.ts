/**
 * Archive of a finished run's turns (the bulk of its storage: one row per generation, tool response and
 * judgement) to gzip JSON Lines in an archive store, and restore on demand.
 *
 * Archiving streams the run's turns (keyset pages on the (runId, trajectoryId, index) key, so a run of
 * millions of turns never sits in memory) into `<store>/<runId>/turns.jsonl.gz`, reads the file back and
 * checks its line count and SHA-256, writes `manifest.json`, and only then, in one transaction that also
 * checks nothing was added meanwhile, drops the run's turn partition (O(1), lib/turn-partitions.ts) and
 * marks the run archived. Trajectories, verdicts, metrics and steps stay in the database: the run's pages
 * and lists keep working; only the turn-by-turn view needs a restore, which loads the file back into a
 * fresh partition in one transaction.
 *
 * The store is an S3-compatible bucket when ENVACE_ARCHIVE_S3_BUCKET is set (lib/s3-store.ts: endpoint,
 * region, prefix, addressing from ENVACE_ARCHIVE_S3_*, keys from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY),
 * else a folder: ENVACE_ARCHIVE_DIR, default `.data/archive` beside the product's other local state.
 * Either way the file is read back from the store and checked before anything is dropped.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import zlib from "node:zlib";
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { dropTurnPartition, ensureTurnPartition } from "./turn-partitions";
import { s3ConfigFromEnv, s3Store } from "./s3-store";

export const ARCHIVE_FORMAT = "envace-turns/1";

/** Where archives live. Keys are `<runId>/<file>`. */
export interface ArchiveStore {
  /** A description of where the key lives (a path or URL), stored on the run. */
  uri(key: string): string;
  /** Writes `key` from a stream producer; the store's file appears only once complete. */
  write(key: string, produce: (out: NodeJS.WritableStream) => Promise<void>): Promise<void>;
  read(key: string): NodeJS.ReadableStream;
  exists(key: string): Promise<boolean>;
  /** Deletes `key` (a file that failed its read-back check); absent keys are no error. */
  remove?(key: string): Promise<void>;
}

export function directoryStore(root: string): ArchiveStore {
  const file = (key: string) => {
    const p = path.resolve(root, key);
    if (!p.startsWith(path.resolve(root) + path.sep)) throw new Error(`archive key ${key} leaves the archive folder`);
    return p;
  };
  return {
    uri: (key) => file(key),
    async write(key, produce) {
      const target = file(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const tmp = `${target}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
      const out = fs.createWriteStream(tmp);
      const done = new Promise<void>((resolve, reject) => {
        out.on("finish", () => resolve());
        out.on("error", reject);
      });
      try {
        await produce(out);
        out.end();
        await done;
        await fs.promises.rename(tmp, target);
      } catch (err) {
        out.destroy();
        await fs.promises.rm(tmp, { force: true });
        throw err;
      }
    },
    read: (key) => fs.createReadStream(file(key)),
    exists: (key) => fs.promises.access(file(key)).then(() => true, () => false),
    remove: (key) => fs.promises.rm(file(key), { force: true }),
  };
}

/** The configured store: the S3 bucket ENVACE_ARCHIVE_S3_BUCKET, else ENVACE_ARCHIVE_DIR, else `.data/archive` under the working directory. */
export function defaultArchiveStore(env: NodeJS.ProcessEnv = process.env): ArchiveStore {
  const s3 = s3ConfigFromEnv(env);
  if (s3) return s3Store(s3);
  const dir = env.ENVACE_ARCHIVE_DIR?.trim();
  return directoryStore(path.resolve(dir ? dir : path.join(".data", "archive")));
}

/** One archived turn: every column of the turn table, as stored. */
const archivedTurn = z.object({
  runId: z.string(),
  id: z.string(),
  trajectoryId: z.string(),
  index: z.number().int(),
  role: z.string(),
  text: z.string(),
  toolCalls: z.unknown().nullable(),
  rehearsedResponse: z.string().nullable(),
  realResponse: z.string().nullable(),
  fidelity: z.unknown().nullable(),
  errorCode: z.string().nullable(),
  promptTokens: z.number().int(),
  responseTokens: z.number().int(),
  advantage: z.number().nullable(),
});
type ArchivedTurn = z.infer<typeof archivedTurn>;

const manifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  runId: z.string(),
  turns: z.number().int().min(0),
  trajectories: z.number().int().min(0),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
});
export type ArchiveManifest = z.infer<typeof manifestSchema>;

const PAGE = 5000;
const turnsKey = (runId: string) => `${runId}/turns.jsonl.gz`;
const manifestKey = (runId: string) => `${runId}/manifest.json`;

/** Column → Postgres type, for reading the archive back with jsonb_to_recordset. */
const COLUMNS = {
  runId: "text", id: "text", trajectoryId: "text", index: "int", role: "text", text: "text", toolCalls: "jsonb", rehearsedResponse: "text",
  realResponse: "text", fidelity: "jsonb", errorCode: "text", promptTokens: "int", responseTokens: "int", advantage: "float8",
} as const;

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
  return Buffer.concat(chunks);
}

/** SHA-256 of the stored file and its turn count (lines), read back from the store. */
async function verifyFile(store: ArchiveStore, runId: string): Promise<{ sha256: string; bytes: number; turns: number; trajectories: number }> {
  const hash = crypto.createHash("sha256");
  let bytes = 0;
  const raw = store.read(turnsKey(runId));
  raw.on("data", (c: Buffer) => {
    hash.update(c);
    bytes += c.length;
  });
  const lines = readline.createInterface({ input: raw.pipe(zlib.createGunzip()), crlfDelay: Infinity });
  let turns = 0;
  const trajectories = new Set<string>();
  for await (const line of lines) {
    if (!line) continue;
    const t = archivedTurn.parse(JSON.parse(line));
    if (t.runId !== runId) throw new ArchiveError(`archive of run ${runId}: line ${turns + 1} belongs to run ${t.runId}`);
    trajectories.add(t.trajectoryId);
    turns++;
  }
  return { sha256: hash.digest("hex"), bytes, turns, trajectories: trajectories.size };
}

export interface ArchiveResult {
  runId: string;
  turns: number;
  trajectories: number;
  bytes: number;
  sha256: string;
  uri: string;
}

/**
 * Archives a finished run's turns and drops their partition. Refuses a run that is not finished or is
 * already archived. `now` stamps the manifest and the run.
 */
export async function archiveRunTurns(prisma: PrismaClient, runId: string, opts: { store?: ArchiveStore; now?: Date } = {}): Promise<ArchiveResult> {
  const store = opts.store ?? defaultArchiveStore();
  const now = opts.now ?? new Date();
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { status: true, archivedAt: true } });
  if (!run) throw new ArchiveError(`run ${runId} not found`);
  if (run.archivedAt) throw new ArchiveError(`run ${runId}'s turns are already archived`);
  if (!["succeeded", "failed", "cancelled"].includes(run.status)) throw new ArchiveError(`run ${runId} is ${run.status}; only a finished run can be archived`);

  // 1. Stream the turns into the store (keyset pages, gzip).
  let written = 0;
  await store.write(turnsKey(runId), async (out) => {
    const gzip = zlib.createGzip({ level: 6 });
    const piped = new Promise<void>((resolve, reject) => {
      gzip.on("error", reject);
      gzip.on("end", () => resolve());
      gzip.on("data", (c: Buffer) => {
        if (!out.write(c)) {
          gzip.pause();
          out.once("drain", () => gzip.resume());
        }
      });
    });
    let after: { trajectoryId: string; index: number } | null = null;
    for (;;) {
      const page: ArchivedTurn[] = after
        ? await prisma.$queryRaw<ArchivedTurn[]>`
            select * from turn where "runId" = ${runId} and ("trajectoryId", index) > (${after.trajectoryId}, ${after.index})
            order by "trajectoryId", index limit ${PAGE}`
        : await prisma.$queryRaw<ArchivedTurn[]>`select * from turn where "runId" = ${runId} order by "trajectoryId", index limit ${PAGE}`;
      if (page.length === 0) break;
      const text = page.map((t) => JSON.stringify(t)).join("\n") + "\n";
      if (!gzip.write(text)) await new Promise((r) => gzip.once("drain", r));
      written += page.length;
      const last = page[page.length - 1]!;
      after = { trajectoryId: last.trajectoryId, index: last.index };
      if (page.length < PAGE) break;
    }
    gzip.end();
    await piped;
  });

  // 2. Read it back: the turn count must match what was read, and the checksum goes into the manifest.
  // A file that fails the check is removed (the turns stay in the database) so no unchecked archive lingers.
  const check = await verifyFile(store, runId).catch(async (err: unknown) => {
    await store.remove?.(turnsKey(runId)).catch(() => {});
    throw err instanceof ArchiveError ? err : new ArchiveError(`archive of run ${runId}: the stored file could not be read back: ${(err as Error).message}`);
  });
  if (check.turns !== written) {
    await store.remove?.(turnsKey(runId)).catch(() => {});
    throw new ArchiveError(`archive of run ${runId}: wrote ${written} turns, read back ${check.turns}`);
  }
  const manifest: ArchiveManifest = { format: ARCHIVE_FORMAT, runId, turns: written, trajectories: check.trajectories, bytes: check.bytes, sha256: check.sha256, createdAt: now.toISOString() };
  await store.write(manifestKey(runId), async (out) => {
    out.write(JSON.stringify(manifest, null, 2) + "\n");
  });

  // 3. Drop the partition and mark the run, unless turns changed meanwhile.
  await prisma.$transaction(
    async (tx) => {
      const locked = await tx.$queryRaw<{ archivedAt: Date | null }[]>`select "archivedAt" from "run" where id = ${runId} for update`;
      if (locked.length === 0) throw new ArchiveError(`run ${runId} was deleted while archiving`);
      if (locked[0]!.archivedAt) throw new ArchiveError(`run ${runId}'s turns are already archived`);
      const [{ n }] = await tx.$queryRaw<{ n: number }[]>`select count(*)::int as n from turn where "runId" = ${runId}`;
      if (n !== written) throw new ArchiveError(`run ${runId} has ${n} turns now, ${written} were archived; nothing dropped`);
      await dropTurnPartition(tx, runId);
      await tx.run.update({ where: { id: runId }, data: { archivedAt: now, archiveUri: store.uri(runId) } });
      await tx.runLog.create({ data: { runId, level: "info", message: `turns archived: ${written} turns, ${(check.bytes / 1e6).toFixed(1)} MB gzip JSON Lines at ${store.uri(turnsKey(runId))} (sha256 ${check.sha256.slice(0, 12)}…)` } });
    },
    { timeout: 60_000 },
  );
  return { runId, turns: written, trajectories: check.trajectories, bytes: check.bytes, sha256: check.sha256, uri: store.uri(turnsKey(runId)) };
}

/** Reads the run's manifest (null when the store has none). */
export async function readManifest(store: ArchiveStore, runId: string): Promise<ArchiveManifest | null> {
  if (!(await store.exists(manifestKey(runId)))) return null;
  const parsed = manifestSchema.safeParse(JSON.parse((await streamToBuffer(store.read(manifestKey(runId)))).toString("utf8")));
  if (!parsed.success) throw new ArchiveError(`${store.uri(manifestKey(runId))}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/**
 * Loads an archived run's turns back into a fresh partition (one transaction: all of them or none) after
 * checking the file against its manifest, and clears the run's archived mark. The files stay.
 */
export async function restoreRunTurns(prisma: PrismaClient, runId: string, opts: { store?: ArchiveStore } = {}): Promise<{ runId: string; turns: number }> {
  const store = opts.store ?? defaultArchiveStore();
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { archivedAt: true } });
  if (!run) throw new ArchiveError(`run ${runId} not found`);
  if (!run.archivedAt) throw new ArchiveError(`run ${runId}'s turns are not archived`);
  const manifest = await readManifest(store, runId);
  if (!manifest) throw new ArchiveError(`run ${runId}: no archive manifest at ${store.uri(manifestKey(runId))}`);
  const check = await verifyFile(store, runId);
  if (check.sha256 !== manifest.sha256 || check.turns !== manifest.turns) {
    throw new ArchiveError(`run ${runId}: the archive at ${store.uri(turnsKey(runId))} does not match its manifest (sha256 or turn count differs)`);
  }
  await ensureTurnPartition(prisma, runId);
  const names = Object.keys(COLUMNS).map((c) => `"${c}"`).join(", ");
  const recordType = Object.entries(COLUMNS).map(([c, t]) => `"${c}" ${t}`).join(", ");
  const sql = `insert into turn (${names}) select ${names} from jsonb_to_recordset(convert_from(decode($1, 'base64'), 'UTF8')::jsonb) as r(${recordType})`;
  let restored = 0;
  await prisma.$transaction(
    async (tx) => {
      const lines = readline.createInterface({ input: store.read(turnsKey(runId)).pipe(zlib.createGunzip()), crlfDelay: Infinity });
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await tx.$executeRawUnsafe(sql, Buffer.from(`[${batch.join(",")}]`, "utf8").toString("base64"));
        restored += batch.length;
        batch = [];
      };
      for await (const line of lines) {
        if (!line) continue;
        batch.push(line);
        if (batch.length >= PAGE) await flush();
      }
      await flush();
      if (restored !== manifest.turns) throw new ArchiveError(`run ${runId}: restored ${restored} turns, the manifest says ${manifest.turns}`);
      await tx.run.update({ where: { id: runId }, data: { archivedAt: null } });
      await tx.runLog.create({ data: { runId, level: "info", message: `turns restored from the archive: ${restored} turns` } });
    },
    { timeout: 600_000, maxWait: 30_000 },
  );
  return { runId, turns: restored };
}

/**
 * The retention sweep: archives the turns of every finished, unarchived run whose retainTurnsDays have
 * passed since it finished. One run's failure is reported and does not stop the others.
 */
export async function archiveExpiredRuns(
  prisma: PrismaClient,
  opts: { store?: ArchiveStore; now?: Date; log?: (line: string) => void } = {},
): Promise<{ archived: string[]; failed: { runId: string; error: string }[] }> {
  const now = opts.now ?? new Date();
  const due = await prisma.$queryRaw<{ id: string }[]>`
    select id from "run"
    where "retainTurnsDays" is not null and "archivedAt" is null and status in ('succeeded', 'failed', 'cancelled')
      and "finishedAt" is not null and "finishedAt" + make_interval(days => "retainTurnsDays") <= ${now}
    order by "finishedAt"`;
  const archived: string[] = [];
  const failed: { runId: string; error: string }[] = [];
  for (const { id } of due) {
    try {
      const r = await archiveRunTurns(prisma, id, { store: opts.store, now });
      archived.push(id);
      opts.log?.(`retention: archived run ${id}'s ${r.turns} turns to ${r.uri}`);
    } catch (err) {
      failed.push({ runId: id, error: (err as Error).message });
      opts.log?.(`retention: could not archive run ${id}: ${(err as Error).message}`);
    }
  }
  return { archived, failed };
}
