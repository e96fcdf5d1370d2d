/**
 * The web process's body limits, end to end: a real server process (test/api-server-main.ts: the app's
 * routes behind the same front as scripts/web.ts) gets 100 MB bodies on every route, with and without a
 * login, declared or chunked. Each is answered 413 naming its limit within 100 ms, and the process's
 * memory stays flat (its resident size is read from /proc).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { signUp, type TestUser } from "../../test/helpers";
import { repoRoot } from "./database";

const MB = 1024 * 1024;
const BODY = 100 * MB;

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** CPU time the process used so far, in clock ticks (utime + stime from /proc). */
function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Wait (at most 5 s) until the process used at most one clock tick of CPU in 100 ms. */
async function settled(pid: number): Promise<void> {
  const until = Date.now() + 5_000;
  let last = cpuTicks(pid);
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    const now = cpuTicks(pid);
    if (now - last <= 1) return;
    last = now;
  }
}

interface Sent {
  status: number;
  ms: number;
  body: string;
  /** Bytes written by the client when the answer came. */
  sent: number;
}

/**
 * Send `BODY` bytes (declared in Content-Length or chunked) as fast as the server takes them, and time the
 * answer from the moment the request went out. Stops sending once answered.
 */
function sendHuge(base: string, method: string, pathname: string, opts: { chunked: boolean; headers?: Record<string, string> }): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const url = new URL(pathname, base);
    const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
    // Named explicitly: node:http would send a GET's body without any framing otherwise.
    if (opts.chunked) headers["transfer-encoding"] = "chunked";
    else headers["content-length"] = String(BODY);
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: false });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    const started = performance.now();
    req.on("response", (res) => {
      answered = true;
      const ms = performance.now() - started;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (body += d));
      const at = sent;
      // Answered: hang up, as a client that got its 413 does, so the server's lingering close ends now and
      // no request's tail overlaps the next one's timing.
      const done = () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, ms, body, sent: at });
      };
      res.on("end", done);
      res.on("error", done);
      res.on("aborted", done);
    });
    req.on("error", (err) => {
      if (!answered) reject(new Error(`${method} ${pathname}: no answer before the connection failed (${(err as Error).message}) after ${sent} bytes`));
    });
    const pump = () => {
      while (!answered && sent < BODY) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    req.flushHeaders();
    pump();
  });
}

describe("body limits of the web process (every route, signed in or not)", () => {
  let server: ChildProcess;
  let base: string;
  let output = "";
  let member: TestUser;

  beforeAll(async () => {
    member = await signUp("member");
    server = spawn(process.execPath, ["--import", "tsx", path.join("test", "api-server-main.ts")], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? inject("databaseUrl") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the API server did not start:\n${output}`)), 60_000);
      const onData = (d: Buffer) => {
        output += d;
        const m = /listening (http:\/\/\S+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      server.stdout!.on("data", onData);
      server.stderr!.on("data", (d: Buffer) => (output += d));
      server.once("exit", (code) => reject(new Error(`the API server exited (${code}):\n${output}`)));
    });
  });
  afterAll(() => {
    server?.kill("SIGKILL");
  });

  const routes: { method: string; path: string; limit: string; auth: boolean }[] = [
    { method: "POST", path: "/api/v1/runs", limit: "1 MB, the limit for POST /api/v1/runs", auth: false },
    { method: "POST", path: "/api/v1/runs", limit: "1 MB, the limit for POST /api/v1/runs", auth: true },
    { method: "POST", path: "/api/v1/datasets", limit: "41 MB, the limit for POST /api/v1/datasets", auth: true },
    // A dataset import's larger limit is for members only: without a login the default applies.
    { method: "POST", path: "/api/v1/datasets", limit: "1 MB, the limit for POST /api/v1/datasets without a login", auth: false },
    { method: "PATCH", path: "/api/v1/mcp-servers/x", limit: "1 MB, the limit for PATCH /api/v1/mcp-servers/x", auth: false },
    { method: "POST", path: "/api/trpc/runs.create", limit: "1 MB, the limit for runs.create", auth: true },
    { method: "POST", path: "/api/trpc/datasets.import", limit: "41 MB, the limit for datasets.import", auth: true },
    { method: "POST", path: "/api/trpc/datasets.import", limit: "1 MB, the limit for datasets.import without a login", auth: false },
    { method: "POST", path: "/api/auth/sign-in/email", limit: "64 KB, the limit for the account endpoints", auth: false },
    { method: "GET", path: "/api/events", limit: "1 MB, the limit for this request", auth: true },
    { method: "GET", path: "/api/openapi.json", limit: "1 MB, the limit for this request", auth: false },
    { method: "POST", path: "/no/such/page", limit: "1 MB, the limit for this request", auth: false },
    // Routes added since: a study launch (REST) and the adapter download, which reads no body at all.
    { method: "POST", path: "/api/v1/studies", limit: "1 MB, the limit for POST /api/v1/studies", auth: true },
    { method: "GET", path: "/api/checkpoints/00000000-0000-0000-0000-000000000000/adapter", limit: "1 MB, the limit for this request", auth: true },
    { method: "POST", path: "/api/trpc/studies.create", limit: "1 MB, the limit for studies.create", auth: false },
  ];

  for (const chunked of [false, true]) {
    it(`answers 413 naming the limit ${chunked ? "as soon as the limit went past" : "within 100 ms"} to a ${chunked ? "chunked" : "declared"} 100 MB body, and holds no more memory`, async () => {
      const before = rssBytes(server.pid!);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(server.pid!))), 10);
      try {
        for (const r of routes) {
          const headers: Record<string, string> = r.auth ? { cookie: member.headers.get("cookie")! } : {};
          // A request answered leaves the server busy for a moment (dropping what its lingering close reads):
          // each timing starts once the server is idle, or it would measure the previous request's tail.
          await settled(server.pid!);
          const res = await sendHuge(base, r.method, r.path, { chunked, headers });
          const what = `${r.method} ${r.path}${r.auth ? " (signed in)" : ""}`;
          expect(res.status, what).toBe(413);
          if (!chunked) expect(res.ms, what).toBeLessThan(100);
          else {
            // A streamed body is counted as it comes: the answer follows as soon as the limit went past
            // (a 1 MB limit takes a few milliseconds to arrive; 41 MB about ten times as long).
            expect(res.sent, what).toBeLessThan(60 * MB);
            expect(res.ms, what).toBeLessThan(r.limit.startsWith("41 MB") ? 1_000 : 250);
          }
          expect(res.body, what).toContain(`the request body is larger than ${r.limit}`);
        }
        // Four at once, without a login (the probe's case).
        const four = await Promise.all(Array.from({ length: 4 }, () => sendHuge(base, "POST", "/api/v1/runs", { chunked })));
        expect(four.map((r) => r.status)).toEqual([413, 413, 413, 413]);
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, rssBytes(server.pid!));
      console.log(`${chunked ? "chunked" : "declared"}: resident ${Math.round(before / MB)} MB before, at most ${Math.round(peak / MB)} MB during ${routes.length + 4} requests of 100 MB`);
      // Generous bounds (what is read and dropped during a lingering close churns some buffers); a route that
      // read one of these bodies would add 100 MB or more. A chunked body is held up to its route's limit
      // (41 MB for a member's dataset import), never beyond it.
      expect(peak - before).toBeLessThan((chunked ? 100 : 64) * MB);
    });
  }

  it("refuses a body over the limit before the client sends it when it asks first (Expect: 100-continue), and lets one within it go on", async () => {
    const ask = (length: number) =>
      new Promise<{ continued: boolean; status: number }>((resolve, reject) => {
        const url = new URL("/api/v1/runs", base);
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": String(length), expect: "100-continue" } });
        let continued = false;
        req.on("continue", () => {
          continued = true;
          req.end("x".repeat(length));
        });
        req.on("response", (res) => {
          res.resume();
          res.on("end", () => resolve({ continued, status: res.statusCode ?? 0 }));
        });
        req.on("error", reject);
        req.flushHeaders();
      });
    expect(await ask(BODY)).toEqual({ continued: false, status: 413 });
    // Within the limit: told to go on, then answered by the route itself.
    const within = await ask(10);
    expect(within.continued).toBe(true);
    expect(within.status).not.toBe(413);
  });

  it("lets bodies within their limit through, chunked ones whole", async () => {
    const viaChunks = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL("/api/trpc/users.whoami?batch=1", base);
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: "POST", headers: { "content-type": "application/json", cookie: member.headers.get("cookie")! } }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.write("{");
      req.write("}");
      req.end();
    });
    expect(viaChunks.status).toBe(200);
    expect(viaChunks.body).toContain(member.email);
  });
});
