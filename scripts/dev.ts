/**
 * One command for the whole product on embedded defaults:
 *   embedded Postgres (or DATABASE_URL) → migrations → embedded node → worker → web.
 * `npm start` serves a production build (built on first start); `npm run dev` uses `next dev`.
 */
import fs from "node:fs";
import path from "node:path";
import { assertPortFree, ensureDatabase, repoRoot } from "./lib/database";
import { ensureSecret } from "./lib/secret";
import { startProcess, stopAll, waitForHttp, type Managed } from "./lib/processes";
import { registerEmbeddedNode } from "./lib/register-node";

const mode = process.argv.includes("--dev") ? "dev" : "start";
const webPort = Number(process.env.PORT ?? 3000);
const nodePort = Number(process.env.NODE_PORT ?? 8765);
const dataDir = path.join(repoRoot, ".data");
const tsx = path.join(repoRoot, "node_modules/.bin/tsx");
const next = path.join(repoRoot, "node_modules/.bin/next");
const procs: Managed[] = [];
let shuttingDown = false;

async function main() {
  await assertPortFree(webPort, "0.0.0.0", "web port (PORT)");
  await assertPortFree(nodePort, "127.0.0.1", "embedded node port (NODE_PORT)");
  const secret = ensureSecret(dataDir);
  console.log(process.env.DATABASE_URL ? "database: DATABASE_URL" : `database: embedded Postgres in ${path.join(dataDir, "pg")}`);
  const db = await ensureDatabase();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    ENVACE_SECRET: secret,
    ENVACE_PUBLIC_URL: process.env.ENVACE_PUBLIC_URL ?? `http://localhost:${webPort}`,
    TZ: "UTC",
  };

  const stop = async (code: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.log("stopping…");
    await stopAll(procs);
    await db.stop().catch(() => {});
    process.exit(code);
  };
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
  const watch = (p: Managed) =>
    p.child.on("exit", (code) => {
      if (!shuttingDown) {
        console.error(`${p.name} exited (${code}); stopping everything`);
        stop(1);
      }
    });

  if (fs.existsSync(path.join(repoRoot, "worker/node/main.ts"))) {
    const node = startProcess("node", tsx, ["worker/node/main.ts"], { ...env, PORT: String(nodePort), HOST: "127.0.0.1" }, repoRoot);
    procs.push(node);
    watch(node);
    await waitForHttp(`http://127.0.0.1:${nodePort}/api/v1/healthz`, 120_000, () => node.child.exitCode === null);
    await registerEmbeddedNode(db.url, `http://127.0.0.1:${nodePort}`);
    console.log(`embedded node: http://127.0.0.1:${nodePort} (OpenAI-compatible /v1, Tinker-compatible /api/v1)`);
  } else {
    console.warn("embedded node not available in this checkout; runs need an attached node");
  }

  const worker = startProcess("worker", tsx, ["worker/main.ts"], env, repoRoot);
  procs.push(worker);
  watch(worker);

  if (mode === "start" && (!fs.existsSync(path.join(repoRoot, ".next/BUILD_ID")) || process.env.ENVACE_REBUILD === "1")) {
    console.log("building the web app (first start only)…");
    const build = startProcess("build", next, ["build"], env, repoRoot);
    const code = await new Promise<number>((r) => build.child.on("exit", (c) => r(c ?? 1)));
    if (code !== 0) return stop(1);
  }
  const web = startProcess("web", next, [mode === "dev" ? "dev" : "start", "-p", String(webPort)], env, repoRoot);
  procs.push(web);
  watch(web);
  await waitForHttp(`http://127.0.0.1:${webPort}/sign-in`, 180_000, () => web.child.exitCode === null);
  console.log(`\nEnvACE Studio is up: http://localhost:${webPort}  (first account you create becomes admin)\n`);
}

main().catch(async (err) => {
  console.error(`envace: ${(err as Error).message}`);
  await stopAll(procs);
  process.exit(1);
});
