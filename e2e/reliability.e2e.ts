/**
 * The product's processes under `npm start` (e2e/global-setup.ts runs scripts/dev.ts):
 *  - a worker killed with SIGKILL is restarted by the supervisor and logged, while the web keeps answering;
 *  - the web process (scripts/web.ts) and a bare `next start` both exit promptly on SIGTERM while a live
 *    event stream is open (the stream ends instead of holding the server open).
 */
import { expect, test } from "@playwright/test";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

const root = path.resolve(".");
const serverLog = path.join(root, ".run", "e2e-server.log");

function parentOf(pid: number): number | null {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may contain spaces, so split after the last ")".
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

/** Processes below `ancestor` whose command line contains `needle`. */
function descendants(ancestor: number, needle: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let cmd = "";
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    } catch {
      continue;
    }
    if (!cmd.includes(needle)) continue;
    for (let p: number | null = parentOf(pid), hops = 0; p && p > 1 && hops < 10; p = parentOf(p), hops++) {
      if (p === ancestor) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, check: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("a killed worker is restarted by the supervisor while the web keeps answering", async ({ baseURL }) => {
  const devPid = Number(fs.readFileSync(path.join(root, ".run", "e2e-dev-pid"), "utf8"));
  const [worker] = descendants(devPid, "worker/main.ts");
  expect(worker, "the worker process under npm start").toBeTruthy();
  const logBefore = fs.readFileSync(serverLog, "utf8").length;

  let polling = true;
  const failures: string[] = [];
  let answered = 0;
  const poller = (async () => {
    while (polling) {
      try {
        const res = await fetch(`${baseURL}/sign-in`, { signal: AbortSignal.timeout(10_000) });
        if (res.ok) answered++;
        else failures.push(`HTTP ${res.status}`);
      } catch (err) {
        failures.push((err as Error).message);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();

  process.kill(worker!, "SIGKILL");
  const log = () => fs.readFileSync(serverLog, "utf8").slice(logBefore);
  await until("the restart to be logged", () => /\[envace\] worker was killed \(SIGKILL\) after .*; restarting in/.test(log()), 30_000);
  const replacement = await until("a new worker process", () => descendants(devPid, "worker/main.ts").find((p) => p !== worker), 60_000);
  await until("the worker to be back", () => log().includes("[envace] worker is back (restart 1)"), 60_000);
  // It keeps running (not a crash loop).
  await new Promise((r) => setTimeout(r, 3000));
  expect(() => process.kill(replacement, 0)).not.toThrow();
  polling = false;
  await poller;
  expect(failures).toEqual([]);
  expect(answered).toBeGreaterThan(3);
});

/** Start a web process on the e2e database, open a live event stream as a signed-in user, SIGTERM it. */
async function stopWithOpenStream(command: string[], label: string) {
  const port = await freePort();
  const databaseUrl = fs.readFileSync(path.join(root, ".run", "e2e-db-url"), "utf8").trim();
  let output = "";
  const child = spawn(command[0]!, [...command.slice(1), ...(label === "next start" ? ["-p", String(port)] : [])], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl, ENVACE_SECRET: "e2e-secret-0123456789abcdef0123456789", ENVACE_PUBLIC_URL: `http://127.0.0.1:${port}`, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : null))));
  try {
    const base = `http://127.0.0.1:${port}`;
    await until(`${label} to answer`, async () => (await fetch(`${base}/sign-in`).catch(() => null))?.ok, 120_000);
    const email = `sigterm-${crypto.randomBytes(3).toString("hex")}@example.test`;
    let cookie = "";
    await until("a session", async () => {
      const res = await fetch(`${base}/api/auth/sign-up/email`, { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ email, password: "sigterm-password-1", name: "Sig" }) });
      if (!res.ok) return null;
      cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      return true;
    }, 60_000);
    const stream = await fetch(`${base}/api/events`, { headers: { cookie } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain(": connected");
    const streamEnded = (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done) {
        /* drain */
      }
    })();

    const t0 = Date.now();
    child.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000))]);
    const seconds = (Date.now() - t0) / 1000;
    expect(code, `${label} did not exit within 20 s of SIGTERM:\n${output.slice(-2000)}`).not.toBe("timeout");
    expect(seconds).toBeLessThan(10);
    await streamEnded;
  } finally {
    child.kill("SIGKILL");
  }
}

test("the web process exits promptly on SIGTERM while a live event stream is open", async () => {
  await stopWithOpenStream([process.execPath, "--import", "tsx", "scripts/web.ts"], "scripts/web.ts");
});

test("so does a bare `next start`", async () => {
  await stopWithOpenStream([path.join(root, "node_modules/.bin/next"), "start"], "next start");
});
