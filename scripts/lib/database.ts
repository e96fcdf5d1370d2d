/**
 * Database bootstrap shared by the dev command, tests and benchmarks.
 * No DATABASE_URL → the embedded PostgreSQL (`./postgres.ts`), data in a project-local folder.
 * DATABASE_URL set → that server. Either way migrations are applied with `prisma migrate deploy`.
 */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import net from "node:net";
import pg from "pg";
import { postgresUserCanEnter, startEmbeddedPostgres, type EmbeddedDb } from "./postgres";

export { EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedDb } from "./postgres";

export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");

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

/** Resolves once the database answers a query; rejects when `alive()` turns false or time is up. */
export async function waitForDatabase(url: string, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    if (!alive()) throw new Error("the database process exited");
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("select 1");
      return;
    } catch (err) {
      last = (err as Error).message;
    } finally {
      await client.end().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the database did not answer within ${Math.round(timeoutMs / 1000)} s (${last})`);
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

/** Where the product's embedded PostgreSQL keeps its data, password and (as root) its binaries. */
export interface EmbeddedLayout {
  dataDir: string;
  passwordFile: string;
  runtimeDir: string;
  /** Why the data is not in the default place, if it is not. */
  relocated?: string;
}

/**
 * The product's layout: `.data/pg` and `.data/pg-password` by default, or ENVACE_PG_DATA_DIR. As root, the
 * server runs as the `postgres` user; when that user cannot enter the checkout (a checkout under /root,
 * mode 0700), the data goes to a folder under /var/lib/envace-studio named after the checkout instead.
 */
export function embeddedLayout(env: Record<string, string | undefined> = process.env, root = repoRoot): EmbeddedLayout {
  const dotData = path.join(root, ".data");
  const runtimeDir = env.ENVACE_PG_RUNTIME_DIR || "/var/lib/envace-studio";
  const passwordFile = env.ENVACE_PG_PASSWORD_FILE ? path.resolve(root, env.ENVACE_PG_PASSWORD_FILE) : path.join(dotData, "pg-password");
  if (env.ENVACE_PG_DATA_DIR) return { dataDir: path.resolve(root, env.ENVACE_PG_DATA_DIR), passwordFile, runtimeDir };
  const dataDir = path.join(dotData, "pg");
  if (postgresUserCanEnter(dotData)) return { dataDir, passwordFile, runtimeDir };
  const id = crypto.createHash("sha256").update(root).digest("hex").slice(0, 10);
  return {
    dataDir: path.join(runtimeDir, `${path.basename(root)}-${id}`, "pg"),
    passwordFile,
    runtimeDir,
    relocated: `the "postgres" user cannot enter ${root}`,
  };
}

/** The dev entry point: returns a migrated database URL, starting the embedded PostgreSQL when needed. */
export async function ensureDatabase(opts: { port?: number; database?: string; onNote?: (line: string) => void } = {}): Promise<EmbeddedDb> {
  const external = process.env.DATABASE_URL;
  if (external) {
    await assertDatabaseReachable(external);
    await migrate(external);
    return { url: external, dataDir: "", stop: async () => {}, start: async () => {}, pid: () => undefined };
  }
  const layout = embeddedLayout();
  if (layout.relocated) opts.onNote?.(`embedded PostgreSQL data in ${layout.dataDir} (${layout.relocated}; ENVACE_PG_DATA_DIR chooses another place)`);
  const db = await startEmbeddedPostgres({
    dataDir: layout.dataDir,
    passwordFile: layout.passwordFile,
    runtimeDir: layout.runtimeDir,
    port: opts.port ?? Number(process.env.EMBEDDED_PG_PORT ?? 54329),
    database: opts.database ?? "envace",
    // Stopped last by `npm start`'s supervisor, not by the terminal's Ctrl-C.
    ownProcessGroup: true,
    onNote: opts.onNote,
  });
  try {
    await migrate(db.url);
  } catch (err) {
    await db.stop();
    throw err;
  }
  return db;
}

/**
 * How the supervisor stops the embedded Postgres service (scripts/postgres-service.ts), shared by `npm start`
 * and its tests: a long grace period (a checkpoint may be running), and SIGINT — PostgreSQL's fast shutdown —
 * for a server the service left running when it was killed with -9 (SIGTERM would wait for every client).
 */
export const POSTGRES_SERVICE_STOP = { stopTimeoutMs: 30_000, leftoverSignal: "SIGINT" } as const;
