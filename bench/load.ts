/**
 * Load benchmark (`npm run bench:load`): the web app's own cost under many live clients.
 *
 * On a throwaway embedded Postgres (the real migrations) with 300 runs in the table and one training run
 * with a history (steps, 50 metric series, trajectories), it starts the production web process
 * (scripts/web.ts, as `npm start` runs it; loopback only; needs `npm run build`) and, for BENCH_ROUNDS
 * rounds of BENCH_ROUND_S s:
 * - nine in ten clients are browser-like: each has its own account and session, opens the page it is on — the
 *   runs table or the live run's page — with the queries that page makes, keeps the event stream
 *   (/api/events) open and, on each signal, refetches what the UI refetches (app/_lib/live.ts
 *   `liveRoutes`, with its coalescing; queries issued together are batched as httpBatchLink does);
 * - one in ten is a script polling `runs.list` every 2 s with an API token;
 * - meanwhile the run commits a step every BENCH_STEP_S s through a real RunWorker that replays
 *   recorded-shaped steps as if the policy sat on a fast remote node (bench/load-replayer.ts), so the
 *   web app's cost is measured, not the embedded model's training.
 * Printed per round: request latency p50/p95/p99 (every HTTP request a client waits for), errors, events
 * delivered, and the web process's memory after a full collection (its resident size and JS heap, read
 * by bench/load-memory-probe.mjs, loaded into it for this). Between rounds the run only heartbeats for a while: no
 * event may reach any client then (heartbeats must not fan out).
 * Targets: p95 < 250 ms at 200 clients; resident size and heap after the last round within 10 % (and 40 MB)
 * of after the first. The last line is the machine-readable result; the exit code is 1 when a target is missed.
 *
 * Env: BENCH_CLIENTS (200), BENCH_ROUNDS (2), BENCH_ROUND_S (60), BENCH_STEP_S (2), BENCH_WARMUP_S (10),
 * BENCH_CPU_PROF=<dir> (a CPU profile of the web server), BENCH_WEB_FLAGS (more node flags for the web
 * server, e.g. --trace-gc), BENCH_HEAP_SNAPSHOTS=<dir> (a heap snapshot of the web server after each
 * round's idle window), BENCH_LOG_SQL=1 (Postgres logs every statement), BENCH_KEEP=1 (keep the logs).
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import superjson from "superjson";
import { migrate, repoRoot, startEmbeddedPostgres } from "../scripts/lib/database";
import { waitForHttp } from "../scripts/lib/processes";
import { freePort } from "../test/processes";
import { percentile } from "./stats";
import { RefetchSchedule, liveRoutes } from "../app/_lib/live";
import { DEFAULT_CLOSED_PANELS, MAX_CHART_POINTS, groupPanels, panelQueryKeys } from "../app/_components/charts/chart-math";
import { changeEventSchema, type ChangeEvent } from "../contracts/events";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ROUND_S = Number(process.env.BENCH_ROUND_S ?? 60);
const STEP_S = Number(process.env.BENCH_STEP_S ?? 2);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const IDLE_S = 8;
const TARGET_P95_MS = 250;
const SECRET = "bench-load-secret-0123456789abcdef0123456789";
const PASSWORD = "bench-password-1";

/**
 * The web server's resident size and JS heap right after a full collection, from the probe loaded into it
 * (bench/load-memory-probe.mjs): SIGUSR2, then its answer line in `file`.
 */
async function memoryAfterFullCollection(web: ChildProcess, file: string): Promise<{ rssMb: number; heapMb: number }> {
  const lines = () => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);
  const before = lines().length;
  web.kill("SIGUSR2");
  const deadline = Date.now() + 60_000;
  while (lines().length === before) {
    if (Date.now() > deadline) throw new Error("the web server's memory probe did not answer (bench/load-memory-probe.mjs)");
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = JSON.parse(lines().at(-1)!) as { rss: number; heapUsed: number };
  return { rssMb: m.rss / 1048576, heapMb: m.heapUsed / 1048576 };
}

/** A process and its descendants. */
function processTree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (ppid === pids[i]) pids.push(Number(entry));
      } catch {
        /* gone */
      }
    }
  }
  return pids;
}

/** CPU seconds (user + system) a process and its descendants have used so far (100 Hz ticks). */
function cpuSeconds(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime + stime, plus cutime + cstime: the time of children that already exited (pool connections come and go).
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      /* gone */
    }
  }
  return ticks / 100;
}

interface Query {
  path: string;
  input: Record<string, unknown>;
}

/** What every client measures, reset per round. */
class Stats {
  latencies: number[] = [];
  byPath = new Map<string, number[]>();
  bytesByPath = new Map<string, number>();
  errors = 0;
  requests = 0;
  bytes = 0;
  events = 0;
  eventsByType = new Map<string, number>();
  reset() {
    this.latencies = [];
    this.byPath.clear();
    this.bytesByPath.clear();
    this.errors = 0;
    this.requests = 0;
    this.bytes = 0;
    this.events = 0;
    this.eventsByType.clear();
  }
}

const stats = new Stats();
let base = "";
let loggedErrors = 0;

// Plain node:http with keep-alive: fetch's web streams would cost this process more CPU than the server spends.
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/**
 * A GET on a kept-alive socket; when the server had just closed that socket, one retry on a new
 * connection, as browsers do (a retry through the pool could meet another socket closed the same way).
 */
async function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer }> {
  try {
    return await getOnce(url, headers, agent);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ECONNRESET") throw err;
    return getOnce(url, headers, false);
  }
}

function getOnce(url: string, headers: Record<string, string>, via: http.Agent | false): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: via, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

let checkedBodies = 0;

/** What is wrong with a batch answer's body (null: a JSON array of `n` results, each with data). */
function bodyProblem(body: Buffer, n: number): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (err) {
    return `not JSON (${(err as Error).message}; ${body.length} bytes)`;
  }
  if (!Array.isArray(parsed) || parsed.length !== n) return `expected an array of ${n} results`;
  const missing = parsed.findIndex((r) => (r as { result?: { data?: unknown } })?.result?.data === undefined);
  return missing >= 0 ? `result ${missing} has no data` : null;
}

/**
 * One tRPC GET as httpBatchLink sends it (batch=1, superjson inputs); records its latency (until the
 * whole body has arrived). Bodies are not decoded (this process would spend more CPU on that than the
 * server, on the same cores): only the run's log lines are read, for the next query's cursor.
 */
async function trpcBatch(queries: Query[], headers: Record<string, string>): Promise<string | null> {
  const paths = queries.map((q) => q.path).join(",");
  const input = Object.fromEntries(queries.map((q, i) => [String(i), superjson.serialize(q.input)]));
  const url = `${base}/api/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
  const t0 = performance.now();
  let ok = false;
  let bytes = 0;
  try {
    const res = await get(url, headers);
    const body = res.body;
    bytes = body.length;
    stats.bytes += bytes;
    // A batch answers 207 when one of its calls failed; every call succeeded when it is 200.
    ok = res.status === 200;
    if (!ok && loggedErrors++ < 5) console.error(`${res.status} on ${paths}: ${body.toString("utf8").slice(0, 300)}`);
    // Fast wrong answers would measure nothing: one body in 20 is decoded and checked.
    if (ok && ++checkedBodies % 20 === 0) {
      const problem = bodyProblem(body, queries.length);
      if (problem) {
        ok = false;
        if (loggedErrors++ < 5) console.error(`bad body on ${paths}: ${problem}`);
      }
    }
    return ok && queries.some((q) => q.path === "runs.logs") ? body.toString("utf8") : null;
  } catch (err) {
    if (loggedErrors++ < 5) console.error(`request failed (${paths}): ${(err as Error).message}`);
    return null;
  } finally {
    const ms = performance.now() - t0;
    stats.requests++;
    if (!ok) stats.errors++;
    stats.latencies.push(ms);
    const key = queries.length === 1 ? queries[0]!.path : `batch(${batchName(queries)})`;
    stats.bytesByPath.set(key, (stats.bytesByPath.get(key) ?? 0) + bytes);
    const list = stats.byPath.get(key) ?? [];
    list.push(ms);
    stats.byPath.set(key, list);
  }
}

/** "metrics.keys+metrics.series×7+runs.get" for a batch's procedures. */
function batchName(queries: Query[]): string {
  const counts = new Map<string, number>();
  for (const q of queries) counts.set(q.path, (counts.get(q.path) ?? 0) + 1);
  return [...counts].map(([p, n]) => (n > 1 ? `${p}×${n}` : p)).join("+");
}

/** A browser tab on one page: its active queries, its event stream, and the UI's refetch rules. */
class BrowserClient {
  private active: Query[] = [];
  /** This tab's timing of refetches, as the UI's (app/_lib/live.ts LiveInvalidator), with its own share of each route's spread. */
  private schedule = new RefetchSchedule(Math.random());
  private batch: Query[] = [];
  private flushScheduled = false;
  private logsAfter: string | null = null;
  private stream: AbortController | null = null;
  eventsSeen = 0;

  constructor(
    private cookie: string,
    private page: "runs" | "run",
    private runId: string,
    private panelKeys: string[][],
  ) {}

  private get headers() {
    return { cookie: this.cookie };
  }

  /** Load the page: the queries it mounts, fetched together as the first render does. */
  async open() {
    const me: Query = { path: "users.me", input: {} };
    if (this.page === "runs") this.active = [me, { path: "runs.list", input: { limit: 50 } }];
    else {
      this.active = [
        me,
        { path: "runs.get", input: { id: this.runId } },
        { path: "metrics.keys", input: { runId: this.runId } },
        ...this.panelKeys.map((keys) => ({ path: "metrics.series", input: { runId: this.runId, keys, maxPoints: MAX_CHART_POINTS, axis: "step", stepRange: null } })),
        { path: "runs.logs", input: { runId: this.runId } },
        { path: "runs.checkpoints", input: { runId: this.runId } },
        { path: "runs.nodes", input: { runId: this.runId } },
      ];
    }
    await Promise.all(this.active.map((q) => this.fetch(q)));
    this.listen();
  }

  private listen() {
    this.stream = new AbortController();
    const req = http.get(`${base}/api/events`, { agent, headers: this.headers, signal: this.stream.signal }, (res) => {
      if (res.statusCode !== 200) {
        stats.errors++;
        console.error(`event stream: HTTP ${res.statusCode}`);
        res.resume();
        return;
      }
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data === undefined) continue;
          const parsed = changeEventSchema.safeParse(JSON.parse(data));
          if (parsed.success) this.onEvent(parsed.data);
        }
      });
      res.on("end", () => {
        if (!this.stream?.signal.aborted) {
          stats.errors++;
          console.error("event stream ended");
        }
      });
      res.on("error", () => {});
    });
    req.on("error", (err) => {
      if (!this.stream?.signal.aborted) {
        stats.errors++;
        console.error(`event stream failed: ${err.message}`);
      }
    });
  }

  close() {
    this.stream?.abort();
    this.schedule.clear();
  }

  /** LiveInvalidator.handle, against this tab's active queries. */
  private onEvent(event: ChangeEvent) {
    this.eventsSeen++;
    stats.events++;
    stats.eventsByType.set(event.t, (stats.eventsByType.get(event.t) ?? 0) + 1);
    for (const route of liveRoutes[event.t]) {
      const matching = () => this.active.filter((q) => q.path === route.path && (route.match === undefined || q.input[route.match] === event.id));
      if (matching().length === 0) continue;
      this.schedule.add(route, event.id, () => {
        for (const q of matching()) this.enqueue(q);
      });
    }
  }

  private enqueue(q: Query) {
    if (!this.batch.includes(q)) this.batch.push(q);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const queries = this.batch.splice(0);
      void trpcBatch(queries.map((x) => this.prepare(x)), this.headers).then((body) => this.absorb(body));
    });
  }

  private fetch(q: Query) {
    return trpcBatch([this.prepare(q)], this.headers).then((body) => this.absorb(body));
  }

  /** The logs query asks only for lines after the last one it has (app/runs/[id]/run-logs.tsx). */
  private prepare(q: Query): Query {
    return q.path === "runs.logs" ? { path: q.path, input: { runId: this.runId, after: this.logsAfter, limit: 200 } } : q;
  }

  /** The last log line's id, from the raw batch body (log ids are the only `"id":"<digits>"` values in it). */
  private absorb(body: string | null) {
    if (!body) return;
    const ids = body.match(/"id":"\d+"/g);
    if (ids?.length) this.logsAfter = ids.at(-1)!.slice(6, -1);
  }
}

/** A script polling the runs table every 2 s with an API token. */
class ScriptClient {
  private timer: NodeJS.Timeout | null = null;
  constructor(private token: string) {}
  start() {
    const poll = () => void trpcBatch([{ path: "runs.list", input: { limit: 50 } }], { authorization: `Bearer ${this.token}` });
    this.timer = setInterval(poll, 2000);
    setTimeout(poll, Math.random() * 2000);
  }
  close() {
    if (this.timer) clearInterval(this.timer);
  }
}

async function main() {
  if (!fs.existsSync(path.join(repoRoot, ".next/BUILD_ID"))) {
    console.error("bench:load needs a production build: run `npm run build` first");
    process.exit(2);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-bench-load-"));
  fs.chmodSync(dir, 0o777);
  const db = await startEmbeddedPostgres({ dataDir: path.join(dir, "pg"), port: await freePort(), database: "bench_load", throwaway: true });
  const children: ChildProcess[] = [];
  const clients: Array<BrowserClient | ScriptClient> = [];
  try {
    await migrate(db.url);
    process.env.DATABASE_URL = db.url;
    process.env.ENVACE_SECRET ??= SECRET;
    const { prisma } = await import("../lib/db");
    const { seedRun } = await import("../test/seed");
    const { sha256 } = await import("../lib/secrets");

    // ---------- seed: a runs table and one live run with a history ----------
    const owner = await prisma.user.create({ data: { id: "bench-owner", name: "Bench", email: "bench-owner@example.test", role: "admin" }, select: { id: true } });
    const now = Date.now();
    await prisma.run.createMany({
      data: Array.from({ length: 300 }, (_, i) => ({
        name: `sweep-${i}`,
        kind: "train",
        status: "succeeded",
        config: {},
        configVersion: 1,
        paradigm: "rehearse",
        policyNode: "bench-remote",
        tags: i % 3 === 0 ? ["sweep", "lr"] : ["sweep"],
        progressStep: 30,
        totalSteps: 30,
        latestMetrics: { "reward/mean": (i % 100) / 100, "fidelity/mean": 0.8 },
        bestMetrics: { "reward/mean": (i % 100) / 90, "fidelity/mean": 0.85 },
        createdById: owner.id,
        createdAt: new Date(now - (300 - i) * 60_000),
      })),
    });
    const history = 200;
    const live = await seedRun(prisma, { userId: owner.id, name: "bench: live run", trajectories: history * 32, turnsPerTrajectory: 10, steps: history, metricSeries: 50, metricPoints: history, evalEvery: 25 });
    await prisma.step.createMany({
      data: Array.from({ length: history }, (_, i) => ({ runId: live.runId, index: i + 1, kind: "train", startedAt: new Date(now - (history - i) * 1000), finishedAt: new Date(now - (history - i) * 1000 + 900), durationMs: 900, statePath: `tinker://bench/weights/step-${i + 1}` })),
      skipDuplicates: true,
    });
    const totalSteps = history + Math.ceil(((WARMUP_S + ROUNDS * (ROUND_S + IDLE_S + 4)) / STEP_S) * 2) + 50;
    await prisma.run.update({ where: { id: live.runId }, data: { status: "queued", totalSteps, progressStep: history, finishedAt: null, createdAt: new Date() } });
    await prisma.node.create({ data: { name: "bench-remote", kind: "tinker", baseUrl: "http://127.0.0.1:9" } });
    await prisma.$executeRawUnsafe("vacuum analyze");
    if (process.env.BENCH_LOG_SQL === "1") {
      await prisma.$executeRawUnsafe("alter system set log_statement = 'all'");
      await prisma.$executeRawUnsafe("select pg_reload_conf()");
    }
    const keys = (await prisma.$queryRaw<{ key: string }[]>`select distinct key from metric_point where "runId" = ${live.runId} order by key`).map((r) => r.key);
    const panelKeys = groupPanels(keys).filter((p) => !DEFAULT_CLOSED_PANELS.has(p.id)).flatMap((p) => panelQueryKeys(p));

    // ---------- the web server ----------
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const webLog = fs.openSync(path.join(dir, "web.log"), "w");
    // The product's web process (scripts/web.ts: Next.js behind node:http, what `npm start` runs).
    const profile = process.env.BENCH_CPU_PROF ? [`--cpu-prof`, `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
    const flags = (process.env.BENCH_WEB_FLAGS ?? "").split(" ").filter(Boolean);
    // Memory is read after a full collection, by a probe loaded into the server (bench/load-memory-probe.mjs).
    const probeFile = path.join(dir, "memory.jsonl");
    flags.push("--expose-gc", "--import", path.join(repoRoot, "bench/load-memory-probe.mjs"));
    const web = spawn(process.execPath, [...profile, ...flags, "--import", "tsx", path.join(repoRoot, "scripts/web.ts")], {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        ENVACE_SECRET: process.env.ENVACE_SECRET,
        ENVACE_PUBLIC_URL: base,
        BENCH_MEMORY_PROBE_FILE: probeFile,
        BENCH_HEAP_SNAPSHOTS: process.env.BENCH_HEAP_SNAPSHOTS ? path.resolve(process.env.BENCH_HEAP_SNAPSHOTS) : "",
        PORT: String(port),
        HOST: "127.0.0.1",
        NODE_ENV: "production",
      },
      stdio: ["ignore", webLog, webLog],
    });
    children.push(web);
    await waitForHttp(`${base}/sign-in`, 180_000, () => web.exitCode === null);

    // ---------- clients: one session each (sign-up through the web app), API tokens for scripts ----------
    const scripts = Math.round(CLIENTS / 10);
    const browsers = CLIENTS - scripts;
    const cookies: string[] = [];
    const t0 = performance.now();
    // Sessions are made by better-auth in this process (same secret and database as the web server, so
    // the cookies are the web app's own); through HTTP its sign-up rate limit would refuse a crowd.
    const { getAuth } = await import("../server/auth");
    for (let i = 0; i < browsers; i++) {
      const res = await getAuth().api.signUpEmail({ body: { email: `load-${i}@example.test`, password: PASSWORD, name: `Load ${i}` }, asResponse: true });
      if (!res.ok) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
      cookies[i] = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    }
    const tokens: string[] = [];
    for (let i = 0; i < scripts; i++) {
      const token = `envace_bench${i.toString().padStart(4, "0")}${"x".repeat(24)}`;
      await prisma.apiToken.create({ data: { userId: owner.id, name: `script ${i}`, prefix: token.slice(0, 12), tokenHash: sha256(token) } });
      tokens.push(token);
    }
    console.log(`${browsers} browser sessions and ${scripts} API tokens in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // ---------- the run: a real worker replaying steps ----------
    const replayer = spawn(path.join(repoRoot, "node_modules/.bin/tsx"), ["bench/load-replayer.ts"], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: db.url, BENCH_STEP_S: String(STEP_S) },
      stdio: ["pipe", "pipe", fs.openSync(path.join(dir, "replayer.log"), "w")],
    });
    children.push(replayer);
    await new Promise<void>((resolve, reject) => {
      replayer.stdout!.on("data", (d) => String(d).includes("replayer ready") && resolve());
      replayer.once("exit", (code) => reject(new Error(`replayer exited (${code})`)));
    });
    const { sendRunJob } = await import("../server/lib/queue");
    await prisma.$transaction(async (tx) => sendRunJob(tx, { runId: live.runId, reason: "created" }));

    // ---------- open every page ----------
    const opening = performance.now();
    for (let i = 0; i < CLIENTS; i++) {
      if (i % 10 === 9) {
        const s = new ScriptClient(tokens[clients.filter((c) => c instanceof ScriptClient).length]!);
        s.start();
        clients.push(s);
      } else {
        const b = new BrowserClient(cookies[clients.filter((c) => c instanceof BrowserClient).length]!, i % 2 === 0 ? "runs" : "run", live.runId, panelKeys);
        clients.push(b);
        await b.open();
      }
    }
    console.log(`${CLIENTS} clients opened their pages in ${((performance.now() - opening) / 1000).toFixed(1)} s`);
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    await new Promise((r) => setTimeout(r, WARMUP_S * 1000));

    // ---------- rounds ----------
    const postmaster = Number(fs.readFileSync(path.join(db.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    const rounds: Array<Record<string, number>> = [];
    const start = await memoryAfterFullCollection(web, probeFile);
    const memory: number[] = [start.rssMb];
    const heap: number[] = [start.heapMb];
    let heartbeatOnlyEvents = 0;
    for (let r = 1; r <= ROUNDS; r++) {
      stats.reset();
      lag.reset();
      const stepsBefore = await prisma.step.count({ where: { runId: live.runId } });
      const cpuBefore = [web.pid!, postmaster, replayer.pid!, process.pid].map(cpuSeconds);
      await new Promise((res) => setTimeout(res, ROUND_S * 1000));
      const [webCpuS, pgCpuS, replayerCpuS, benchCpuS] = [web.pid!, postmaster, replayer.pid!, process.pid].map((p, i) => cpuSeconds(p) - cpuBefore[i]!);
      const committed = (await prisma.step.count({ where: { runId: live.runId } })) - stepsBefore;
      const sorted = [...stats.latencies].sort((a, b) => a - b);
      const round = {
        round: r,
        requests: stats.requests,
        kbPerRequest: Math.round(stats.bytes / 1024 / Math.max(1, stats.requests)),
        errors: stats.errors,
        p50: Number(percentile(sorted, 50).toFixed(1)),
        p95: Number(percentile(sorted, 95).toFixed(1)),
        p99: Number(percentile(sorted, 99).toFixed(1)),
        eventsDelivered: stats.events,
        stepsCommitted: committed,
        webRssMb: 0,
        webHeapMb: 0,
        clientLoopP99Ms: Number((lag.percentile(99) / 1e6).toFixed(1)),
        webCpuMsPerRequest: Number(((webCpuS * 1000) / Math.max(1, stats.requests)).toFixed(1)),
        webCpuShare: Number((webCpuS / ROUND_S).toFixed(2)),
        postgresCpuShare: Number((pgCpuS / ROUND_S).toFixed(2)),
        replayerCpuShare: Number((replayerCpuS / ROUND_S).toFixed(2)),
        clientsCpuShare: Number((benchCpuS / ROUND_S).toFixed(2)),
      };
      const types = [...stats.eventsByType].map(([t, n]) => `${t} ${n}`).join(", ");
      const slowest = [...stats.byPath]
        .map(([p, l]) => [p, percentile(l.sort((a, b) => a - b), 95), l.length] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([p, v, n]) => `${p} p95 ${v.toFixed(0)} ms (${n}, ${Math.round((stats.bytesByPath.get(p) ?? 0) / 1024 / n)} KB each)`)
        .join("; ");

      // Only heartbeats for a while: nothing may reach any client.
      replayer.stdin!.write(`pause ${IDLE_S + 3 + STEP_S}\n`);
      await new Promise((res) => setTimeout(res, (STEP_S + 2) * 1000)); // a step in flight commits first
      const before = stats.events;
      await new Promise((res) => setTimeout(res, IDLE_S * 1000));
      heartbeatOnlyEvents += stats.events - before;
      const after = await memoryAfterFullCollection(web, probeFile);
      round.webRssMb = Number(after.rssMb.toFixed(0));
      round.webHeapMb = Number(after.heapMb.toFixed(0));
      memory.push(round.webRssMb);
      heap.push(round.webHeapMb);
      rounds.push(round);
      console.log(
        `round ${r}: ${round.requests} requests (${round.kbPerRequest} KB each on average), ${round.errors} errors, p50 ${round.p50} ms, p95 ${round.p95} ms, p99 ${round.p99} ms; ` +
          `${round.eventsDelivered} events delivered (${types}) for ${committed} committed steps; web RSS ${round.webRssMb} MB, heap ${round.webHeapMb} MB (after a full collection); web CPU ${round.webCpuMsPerRequest} ms per request (${Math.round(round.webCpuShare * 100)} % of a core); client loop p99 ${round.clientLoopP99Ms} ms`,
      );
      console.log(`  CPU (cores): web ${round.webCpuShare}, Postgres ${round.postgresCpuShare}, run replayer ${round.replayerCpuShare}, these clients ${round.clientsCpuShare}; machine load ${os.loadavg()[0]!.toFixed(1)}`);
      console.log(`  slowest: ${slowest}`);
      console.log(`  heartbeat-only ${IDLE_S} s: ${stats.events - before} events delivered`);
    }

    const worstP95 = Math.max(...rounds.map((r) => r.p95));
    // Growth from after the first round to after the last, of what the process keeps (after a full collection).
    const growth = memory.at(-1)! - memory[1]!;
    const heapGrowth = heap.at(-1)! - heap[1]!;
    const within = (g: number, base: number) => g <= Math.max(40, base * 0.1);
    const memoryOk = ROUNDS < 2 || (within(growth, memory[1]!) && within(heapGrowth, heap[1]!));
    const ok = worstP95 < TARGET_P95_MS && memoryOk && heartbeatOnlyEvents === 0 && rounds.every((r) => r.errors === 0);
    console.log(
      `${ok ? "PASS" : "FAIL"}: p95 ${worstP95} ms (target < ${TARGET_P95_MS} ms at ${CLIENTS} clients); web RSS ${memory.map((m) => m.toFixed(0)).join(" → ")} MB, heap ${heap.map((m) => m.toFixed(0)).join(" → ")} MB (after full collections) ` +
        `(growth ${growth.toFixed(0)} MB and ${heapGrowth.toFixed(0)} MB across rounds); ${heartbeatOnlyEvents} events from heartbeats; ${rounds.reduce((n, r) => n + r.errors, 0)} errors`,
    );
    console.log(JSON.stringify({ clients: CLIENTS, roundS: ROUND_S, stepS: STEP_S, rounds, memoryMb: memory, heapMb: heap, heartbeatOnlyEvents, ok }));
    process.exitCode = ok ? 0 : 1;
  } finally {
    for (const c of clients) c.close();
    for (const c of children) c.kill("SIGTERM");
    // A profiled web server needs a clean exit to write its profile.
    const grace = Date.now() + (process.env.BENCH_CPU_PROF ? 30_000 : 1500);
    while (Date.now() < grace && children.some((c) => c.exitCode === null && c.signalCode === null)) await new Promise((r) => setTimeout(r, 100));
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    await db.stop();
    if (process.env.BENCH_KEEP === "1") console.log(`kept ${dir} (web.log, replayer.log)`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
