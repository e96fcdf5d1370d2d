/**
 * Brings up the whole product for browser tests on a throwaway embedded Postgres: migrations,
 * embedded node, worker and the production web build (scripts/dev.ts), and tears it all down after.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres, repoRoot } from "../scripts/lib/database";
import { waitForHttp } from "../scripts/lib/processes";

export default async function globalSetup() {
  const port = Number(process.env.E2E_PORT ?? 3100);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-e2e-"));
  fs.chmodSync(dir, 0o777);
  const db = await startEmbeddedPostgres({ dataDir: path.join(dir, "pg"), port: 56000 + Math.floor(Math.random() * 3000), database: "envace_e2e", throwaway: true });
  const logFile = path.join(repoRoot, ".run", "e2e-server.log");
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(path.join(repoRoot, ".run", "e2e-db-url"), db.url); // for e2e files that seed data through Prisma
  const log = fs.openSync(logFile, "w");
  const child = spawn(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/dev.ts"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PORT: String(port),
      NODE_PORT: String(Number(process.env.E2E_NODE_PORT ?? 8799)),
      ENVACE_SECRET: "e2e-secret-0123456789abcdef0123456789",
      ENVACE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      NODE_DATA_DIR: path.join(dir, "node"),
      TZ: "UTC",
    },
    stdio: ["ignore", log, log],
    // Own process group, so teardown stops dev.ts and everything it started (node, worker, web).
    detached: true,
  });
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* already gone */
    }
  };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/sign-in`, 300_000, () => child.exitCode === null);
    // dev.ts prints the URL only once the worker and node are up as well.
    const deadline = Date.now() + 120_000;
    while (!fs.readFileSync(logFile, "utf8").includes("EnvACE Studio is up")) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error("product did not come up");
      await new Promise((r) => setTimeout(r, 300));
    }
  } catch (err) {
    killGroup("SIGTERM");
    await db.stop();
    throw new Error(`${(err as Error).message}; see ${logFile}:\n${fs.readFileSync(logFile, "utf8").slice(-3000)}`);
  }
  process.env.E2E_DATABASE_URL = db.url;
  // For e2e files that act on the product's processes (e2e/reliability.e2e.ts finds the worker under it).
  fs.writeFileSync(path.join(repoRoot, ".run", "e2e-dev-pid"), String(child.pid));
  return async () => {
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => killGroup("SIGKILL"), 15_000);
      child.once("exit", () => {
        clearTimeout(t);
        // Whatever dev.ts did not stop in time goes with the group.
        setTimeout(() => {
          killGroup("SIGKILL");
          resolve();
        }, 500);
      });
      killGroup("SIGTERM");
    });
    await db.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
