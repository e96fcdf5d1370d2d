/**
 * One command for the whole product on embedded defaults:
 *   embedded Postgres (or DATABASE_URL) → migrations → embedded node → worker → web.
 * `npm start` serves a production build (built on first start); `npm run dev` uses `next dev`.
 *
 * The processes are supervised (scripts/lib/supervisor.ts): one that crashes is restarted with backoff
 * and logged while the others keep serving; the embedded Postgres is one of them (scripts/postgres-service.ts).
 * Only Ctrl-C (SIGINT), SIGTERM or SIGHUP stops everything, in order: web, worker, node, and Postgres last.
 * If the supervisor itself dies (kill -9), every service stops on its own (lib/supervised.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { assertPortFree, ensureDatabase, POSTGRES_SERVICE_STOP, repoRoot, waitForDatabase, type EmbeddedDb } from "./lib/database";
import { ensureSecret } from "./lib/secret";
import { waitForHttp } from "./lib/processes";
import { registerEmbeddedNode } from "./lib/register-node";
import { stopOnSignals, Supervisor } from "./lib/supervisor";

const mode = process.argv.includes("--dev") ? "dev" : "start";
const webPort = Number(process.env.PORT ?? 3000);
const nodePort = Number(process.env.NODE_PORT ?? 8765);
const dataDir = path.join(repoRoot, ".data");
const next = path.join(repoRoot, "node_modules/.bin/next");
const embeddedNode = process.env.ENVACE_EMBEDDED_NODE !== "off" && fs.existsSync(path.join(repoRoot, "worker/node/main.ts"));
/** TypeScript entry points run in one process each (`node --import tsx`), so a signal reaches the process itself. */
const tsEntry = (script: string, ...args: string[]) => ({ command: process.execPath, args: ["--import", "tsx", script, ...args] });

const log = (line: string) => console.log(`[envace] ${line}`);
const supervisor = new Supervisor({ log });
let db: EmbeddedDb | null = null;
let build: ReturnType<typeof spawn> | null = null;
const shutdown = stopOnSignals(supervisor, {
  order: ["web", "worker", "node", "database"],
  after: async () => {
    // Only still running in-process if the stop came before the hand-over to the supervised service.
    await db?.stop();
  },
  onStopping: () => {
    log("stopping: web, worker, node, then the database…");
    if (build?.pid) process.kill(-build.pid, "SIGTERM");
  },
  onStopped: () => log("stopped"),
});

async function main() {
  await assertPortFree(webPort, "0.0.0.0", "web port (PORT)");
  if (embeddedNode) await assertPortFree(nodePort, "127.0.0.1", "embedded node port (NODE_PORT)");
  const secret = ensureSecret(dataDir);
  db = await ensureDatabase({ onNote: log });
  if (shutdown.stopping()) return;
  log(process.env.DATABASE_URL ? "database: DATABASE_URL" : `database: embedded PostgreSQL in ${db.dataDir}`);
  if (!process.env.DATABASE_URL) {
    // Initialised and migrated above, in this process; from now on it runs as a supervised service, so a
    // crashed Postgres is restarted like the rest, and it cannot outlive a dead supervisor.
    await db.stop();
    const url = db.url;
    await supervisor.start({
      name: "database",
      ...tsEntry("scripts/postgres-service.ts"),
      env: process.env,
      cwd: repoRoot,
      ready: (alive) => waitForDatabase(url, 60_000, alive),
      ...POSTGRES_SERVICE_STOP,
    });
    if (shutdown.stopping()) return;
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    ENVACE_SECRET: secret,
    ENVACE_PUBLIC_URL: process.env.ENVACE_PUBLIC_URL ?? `http://localhost:${webPort}`,
    TZ: "UTC",
  };

  if (embeddedNode) {
    const url = `http://127.0.0.1:${nodePort}`;
    await supervisor.start({
      name: "node",
      ...tsEntry("worker/node/main.ts"),
      env: { ...env, PORT: String(nodePort), HOST: "127.0.0.1" },
      cwd: repoRoot,
      ready: (alive) => waitForHttp(`${url}/api/v1/healthz`, 120_000, alive),
      afterReady: () => registerEmbeddedNode(db!.url, url),
    });
    log(`embedded node: ${url} (OpenAI-compatible /v1, Tinker-compatible /api/v1)`);
  } else {
    log("no embedded node (ENVACE_EMBEDDED_NODE=off or not in this checkout); runs need an attached node");
  }

  await supervisor.start({ name: "worker", ...tsEntry("worker/main.ts"), env, cwd: repoRoot });

  if (mode === "start" && (!fs.existsSync(path.join(repoRoot, ".next/BUILD_ID")) || process.env.ENVACE_REBUILD === "1")) {
    log("building the web app (first start only)…");
    build = spawn(next, ["build"], { cwd: repoRoot, env, stdio: "inherit", detached: true });
    const code = await new Promise<number>((resolve) => {
      build!.on("error", () => resolve(1));
      build!.on("exit", (c) => resolve(c ?? 1));
    });
    build = null;
    if (shutdown.stopping()) return;
    if (code !== 0) throw new Error(`next build failed (exit ${code})`);
  }
  await supervisor.start({
    name: "web",
    ...tsEntry("scripts/web.ts", ...(mode === "dev" ? ["--dev"] : [])),
    env: { ...env, PORT: String(webPort) },
    cwd: repoRoot,
    ready: (alive) => waitForHttp(`http://127.0.0.1:${webPort}/sign-in`, 180_000, alive),
  });
  log(`EnvACE Studio is up: http://localhost:${webPort}  (first account you create becomes admin)`);
}

main().catch((err) => {
  if (shutdown.stopping()) return; // Ctrl-C during start: the shutdown in progress says what happens
  console.error(`envace: ${(err as Error).message}`);
  void shutdown.stop(1);
});
