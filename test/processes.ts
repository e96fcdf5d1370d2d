/** Real child processes for integration tests: the embedded node and worker processes. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../scripts/lib/database";
import { waitForHttp } from "../scripts/lib/processes";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Child {
  child: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnTsx(script: string, env: Record<string, string | undefined>): Child {
  let out = "";
  const child = spawn(path.join(repoRoot, "node_modules/.bin/tsx"), [script], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Own process group: tsx runs the script in a child process, and a crash test must kill both.
    detached: true,
  });
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return {
    child,
    output: () => out,
    kill: (signal = "SIGTERM") =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode) return resolve();
        child.once("exit", () => resolve());
        try {
          process.kill(-child.pid!, signal);
        } catch {
          child.kill(signal);
        }
      }),
  };
}

/**
 * Start the real embedded node with its own data directory, on a free port unless `port` is given (a
 * restart test starts it again on the same port and data directory: the node's saved states survive,
 * its sessions and pending results do not). `env`: e.g. NODE_WEIGHTS_DIR.
 */
export async function startEmbeddedNode(opts: { port?: number; dataDir?: string; env?: Record<string, string> } = {}): Promise<Child & { url: string; dataDir: string; port: number }> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "envace-node-"));
  const node = spawnTsx("worker/node/main.ts", { ...opts.env, PORT: String(port), HOST: "127.0.0.1", NODE_DATA_DIR: dataDir });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/api/v1/healthz`, 120_000, () => node.child.exitCode === null);
  } catch (err) {
    await node.kill("SIGKILL");
    throw new Error(`embedded node did not start: ${(err as Error).message}\n${node.output()}`);
  }
  return { ...node, url, dataDir, port };
}

/** A real worker process (`worker/main.ts`) on `databaseUrl`, one run at a time, a 2 s heartbeat staleness. */
export function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}): Child {
  return spawnTsx("worker/main.ts", {
    DATABASE_URL: databaseUrl,
    ENVACE_SECRET: process.env.ENVACE_SECRET,
    ENVACE_HEARTBEAT_STALE_S: "2",
    WORKER_CONCURRENCY: "1",
    ...env,
  });
}
