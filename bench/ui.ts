/**
 * UI benchmark (`npm run bench:ui`).
 *
 * On a throwaway embedded Postgres (migrated with the real migrations) it seeds one big run — 100,000
 * trajectories, 1,000,000 turns (+ one 200-turn trajectory), 50 metric series × 20,000 points — plus a few
 * hundred small runs for the runs table. Then:
 * 1. server time: p50/p95 of the tRPC procedures the pages call, through `createCaller` (no HTTP), each
 *    after warm-up: runs table, run page charts (`metrics.keys` + `metrics.series` as the run page asks),
 *    trajectory list pages (first, deep keyset, filtered), facets, group, neighbours, and the 200-turn
 *    trajectory (first page, and every page);
 * 2. browser time: `next start` on the bench DB (needs a production build in .next) driven by Chromium
 *    (playwright-core, /usr/bin/chromium): navigation start → the run page's first chart drawn, and →
 *    the 200-turn trajectory's first turns visible.
 * Targets: p95 < 150 ms per query, visible < 1.5 s. The last line is the machine-readable result.
 *
 * Scale: BENCH_UI_SCALE=S (default 1) seeds S × 100,000 trajectories of 10 turns (S × 1 M turns) and
 * S × 50 series × 20,000 metric points (S × 1 M), all inside Postgres (INSERT … SELECT generate_series) into
 * the production tables and indexes, then VACUUM ANALYZE; BENCH_UI_SCALE=10 is 1 M / 10 M / 10 M.
 * BENCH_TRAJECTORIES / BENCH_TURNS_PER_TRAJECTORY / BENCH_SERIES / BENCH_POINTS override one dimension,
 * BENCH_ITERATIONS (default 40), BENCH_SKIP_BROWSER=1. BENCH_UI_DB_DIR=<dir> keeps the seeded database
 * there and reuses it on the next run with the same shape (re-measuring at 10 M without re-seeding).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrate, repoRoot, startEmbeddedPostgres } from "../scripts/lib/database";
import { waitForHttp } from "../scripts/lib/processes";
import { freePort } from "../test/processes";
import { percentile } from "./stats";

const SCALE = Number(process.env.BENCH_UI_SCALE ?? 1);
if (!(SCALE > 0)) throw new Error(`BENCH_UI_SCALE must be a positive number, got ${process.env.BENCH_UI_SCALE}`);
const TRAJECTORIES = Number(process.env.BENCH_TRAJECTORIES ?? Math.round(100_000 * SCALE));
const TURNS_PER = Number(process.env.BENCH_TURNS_PER_TRAJECTORY ?? 10);
const SERIES = Number(process.env.BENCH_SERIES ?? Math.max(1, Math.round(50 * SCALE)));
const POINTS = Number(process.env.BENCH_POINTS ?? 20_000);
const KEEP_DIR = process.env.BENCH_UI_DB_DIR ? path.resolve(process.env.BENCH_UI_DB_DIR) : null;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const SMALL_RUNS = 300;
const SECRET = "bench-ui-secret-0123456789abcdef0123456789";

/** Emptied before every call: each sample is the query itself, not the shared result (server/lib/live-reads.ts) a step commit invalidates. */
let sharedReads: { clear(): void } | null = null;

async function time(name: string, fn: (i: number) => Promise<unknown>, results: Record<string, { p50: number; p95: number }>) {
  for (let i = 0; i < 3; i++) {
    sharedReads?.clear();
    await fn(i); // warm-up: plans, connections, JIT
  }
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    sharedReads?.clear();
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const r = { p50: Number(percentile(samples, 50).toFixed(1)), p95: Number(percentile(samples, 95).toFixed(1)) };
  results[name] = r;
  console.log(`${name.padEnd(30)} p50 ${String(r.p50).padStart(7)} ms   p95 ${String(r.p95).padStart(7)} ms${r.p95 > 150 ? "   (over the 150 ms target)" : ""}`);
}

async function main() {
  const started = performance.now();
  const dir = KEEP_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "envace-bench-ui-"));
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o777);
  const shape = JSON.stringify({ TRAJECTORIES, TURNS_PER, SERIES, POINTS, SMALL_RUNS });
  const marker = path.join(dir, "seeded.json");
  const reuse = KEEP_DIR != null && fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === shape;
  if (KEEP_DIR && !reuse) fs.rmSync(path.join(dir, "pg"), { recursive: true, force: true });
  // A kept database keeps its password beside it (a throwaway one gets a new password on every start).
  const db = await startEmbeddedPostgres({
    dataDir: path.join(dir, "pg"),
    port: await freePort(),
    database: "bench_ui",
    ...(KEEP_DIR ? { passwordFile: path.join(dir, "pg-password") } : { throwaway: true }),
  });
  let web: ChildProcess | null = null;
  try {
    // On a reused database too: a migration added since it was seeded is applied (and backfills what it adds).
    await migrate(db.url);
    process.env.DATABASE_URL = db.url;
    process.env.ENVACE_SECRET ??= SECRET;
    const { prisma } = await import("../lib/db");
    const { createCaller } = await import("../server/root");
    const { seedRun, seedTrajectory } = await import("../test/seed");
    const { groupPanels } = await import("../app/_components/charts/chart-math");
    sharedReads = (await import("../server/lib/live-reads")).liveReads();

    // ---------- seed ----------
    const t0 = performance.now();
    const steps = Math.max(1, Math.ceil(TRAJECTORIES / 64));
    const bigName = `bench: ${TRAJECTORIES.toLocaleString("en-US")} trajectories`;
    let runId: string;
    let longId: string;
    if (reuse) {
      await prisma.$executeRawUnsafe("analyze");
      runId = (await prisma.run.findFirstOrThrow({ where: { name: bigName }, select: { id: true } })).id;
      longId = (await prisma.trajectory.findFirstOrThrow({ where: { runId, instanceId: "retail-long" }, select: { id: true } })).id;
    } else {
      const user = await prisma.user.create({ data: { id: "bench-user", name: "Bench", email: "bench@example.test", role: "admin" }, select: { id: true } });
      const now = Date.now();
      await prisma.run.createMany({
        data: Array.from({ length: SMALL_RUNS }, (_, i) => ({
          name: `sweep-${i}`,
          kind: "train",
          status: i % 7 === 0 ? "running" : "succeeded",
          config: {},
          configVersion: 1,
          paradigm: "rehearse",
          policyNode: "embedded",
          tags: i % 3 === 0 ? ["sweep", "lr"] : ["sweep"],
          progressStep: 30,
          totalSteps: 30,
          latestMetrics: { "reward/mean": (i % 100) / 100, "fidelity/mean": 0.8 },
          bestMetrics: { "reward/mean": (i % 100) / 90, "fidelity/mean": 0.85 },
          createdById: user.id,
          createdAt: new Date(now - (SMALL_RUNS - i) * 60_000),
        })),
      });
      const big = await seedRun(prisma, {
        userId: user.id,
        name: bigName,
        trajectories: TRAJECTORIES,
        turnsPerTrajectory: TURNS_PER,
        steps,
        instances: 500,
        metricSeries: SERIES,
        metricPoints: POINTS,
        evalEvery: 50,
      });
      runId = big.runId;
      longId = await seedTrajectory(prisma, { runId, step: Math.ceil(steps / 2), turns: 200 });
      await prisma.$executeRawUnsafe("vacuum analyze");
      if (KEEP_DIR) fs.writeFileSync(marker, shape);
    }
    const seedS = (performance.now() - t0) / 1000;
    const counts = await prisma.$queryRawUnsafe<{ t: number; u: number; m: number; v: number; bytes: string }[]>(
      `select (select count(*) from trajectory)::int as t, (select count(*) from turn)::int as u, (select count(*) from metric_point)::int as m, (select count(*) from checklist_verdict)::int as v,
              pg_database_size(current_database())::text as bytes`,
    );
    const c = counts[0]!;
    const seeded = { trajectories: c.t, turns: c.u, verdicts: c.v, metric_points: c.m, db_gb: Number((Number(c.bytes) / 1e9).toFixed(1)), seed_s: reuse ? null : Number(seedS.toFixed(0)) };
    console.log(
      `${reuse ? "reused" : "seeded"} ${c.t.toLocaleString()} trajectories, ${c.u.toLocaleString()} turns, ${c.v.toLocaleString()} verdicts, ${c.m.toLocaleString()} metric points (${SERIES} series × ${POINTS.toLocaleString()}), ${SMALL_RUNS + 1} runs, database ${seeded.db_gb} GB${reuse ? "" : ` in ${seedS.toFixed(1)} s`}`,
    );
    const machine = { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "unknown", load_1m: Number(os.loadavg()[0]!.toFixed(2)), mem_gb: Number((os.totalmem() / 2 ** 30).toFixed(0)) };
    console.log(`machine: ${machine.cpus} × ${machine.cpu}, ${machine.mem_gb} GiB, load average (1 min) ${machine.load_1m} before timing`);

    // ---------- server time ----------
    const caller = createCaller({ user: { id: "bench-user", email: "bench@example.test", name: "Bench", role: "admin", via: "session" }, headers: new Headers() });
    const results: Record<string, { p50: number; p95: number }> = {};

    await time("runs_table", () => caller.runs.list({ limit: 50 }), results);
    const keys = await caller.metrics.keys({ runId });
    // The run page opens every panel except "termination" and "other"; each panel is one series query.
    const panels = groupPanels(keys).filter((p) => p.id !== "termination" && p.id !== "other");
    const panelKeys = panels.map((p) => [...new Set(p.charts.flatMap((c) => c.keys))].slice(0, 40));
    await time("run_metric_keys", () => caller.metrics.keys({ runId }), results);
    await time("run_charts_panel", (i) => caller.metrics.series({ runId, keys: panelKeys[i % panelKeys.length]!, maxPoints: 300, axis: "step" }), results);
    await time("run_charts_all_panels", () => Promise.all(panelKeys.map((k) => caller.metrics.series({ runId, keys: k, maxPoints: 300, axis: "step" }))), results);

    // Everything else the run page asks for on open (header, errored-episodes card, evaluations, world model, checkpoints, logs).
    await time("run_get", () => caller.runs.get({ id: runId }), results);
    await time("run_errored_episodes", () => caller.trajectories.errored({ runId }), results);
    await time("run_evaluations", () => caller.runs.evaluations({ id: runId }), results);
    await time("run_world_model", () => caller.runs.worldModel({ runId, phase: "all", limit: 25 }), results);
    await time("run_checkpoints", () => caller.runs.checkpoints({ runId }), results);
    await time("run_logs", () => caller.runs.logs({ runId, limit: 500 }), results);
    // A collapsed panel opened by hand ("other": the long tail of keys, 40 at a time).
    const other = groupPanels(keys).find((p) => p.id === "other");
    const otherKeys = other ? [...new Set(other.charts.flatMap((c) => c.keys))].slice(0, 40) : null;
    if (otherKeys?.length) await time("run_charts_other_panel", () => caller.metrics.series({ runId, keys: otherKeys, maxPoints: 300, axis: "step" }), results);
    await time("run_charts_zoomed", (i) => caller.metrics.series({ runId, keys: panelKeys[i % panelKeys.length]!, maxPoints: 300, axis: "time", stepRange: { from: Math.floor(POINTS / 3), to: Math.floor(POINTS / 3) + 2000 } }), results);

    await time("trajectory_list_first", () => caller.trajectories.list({ runId, limit: 200 }), results);
    // Cursors spread through the whole run (keyset cost must not grow with depth).
    const cursorRows = await prisma.$queryRawUnsafe<{ id: string }[]>(
      `select id from trajectory where "runId" = $1 and step = any($2::int[]) order by random() limit 40`,
      runId,
      [1, 2, Math.floor(steps / 4), Math.floor(steps / 2), Math.floor((3 * steps) / 4), steps - 1],
    );
    await time("trajectory_list_deep", (i) => caller.trajectories.list({ runId, limit: 200, cursor: cursorRows[i % cursorRows.length]!.id }), results);
    await time(
      "trajectory_list_filtered",
      (i) =>
        caller.trajectories.list(
          i % 3 === 0
            ? { runId, limit: 200, terminationReason: "act_parse_error:JSON_DECODE_ERROR" }
            : i % 3 === 1
              ? { runId, limit: 200, rewardMin: 0.5, rewardMax: 0.8, phase: "train" }
              : { runId, limit: 200, stepMin: Math.floor(steps / 3), stepMax: Math.floor(steps / 3) + 20, outcome: "success" },
        ),
      results,
    );
    await time("trajectory_list_by_reward", (i) => caller.trajectories.list({ runId, limit: 200, sort: i % 2 ? "reward_asc" : "reward_desc", cursor: i % 4 < 2 ? null : cursorRows[i % cursorRows.length]!.id }), results);
    const instance = (await prisma.trajectory.findFirstOrThrow({ where: { runId }, select: { instanceId: true } })).instanceId;
    await time("trajectory_list_instance", () => caller.trajectories.list({ runId, limit: 200, instanceId: instance }), results);
    await time("trajectory_list_deep_by_reward", (i) => caller.trajectories.list({ runId, limit: 200, sort: i % 2 ? "reward_asc" : "reward_desc", cursor: cursorRows[i % cursorRows.length]!.id }), results);
    await time("trajectory_facets", () => caller.trajectories.facets({ runId }), results);
    const groups = await prisma.trajectory.findMany({ where: { runId, rolloutIndex: 0 }, select: { step: true, groupId: true, phase: true }, take: 40, orderBy: { id: "asc" } });
    await time("trajectory_group", (i) => caller.trajectories.group({ runId, ...groups[i % groups.length]!, phase: groups[i % groups.length]!.phase as "train" | "eval" }), results);
    await time("trajectory_neighbours", (i) => caller.trajectories.neighbours({ runId, id: cursorRows[i % cursorRows.length]!.id }), results);
    await time("trajectory_200_turns_first_page", () => caller.trajectories.get({ id: longId, turnsLimit: 60 }), results);
    await time(
      "trajectory_200_turns_all",
      async () => {
        const first = await caller.trajectories.get({ id: longId, turnsLimit: 60 });
        let next = first.nextTurnsFrom;
        while (next != null) next = (await caller.trajectories.turns({ trajectoryId: longId, cursor: next, limit: 100 })).nextFrom;
      },
      results,
    );
    await time("trajectory_200_turns_raw", () => caller.trajectories.raw({ id: longId }), results);

    // ---------- browser ----------
    const visible: Record<string, number | null> = { run_page: null, trajectory_200_turns: null };
    if (process.env.BENCH_SKIP_BROWSER === "1") console.log("browser: skipped (BENCH_SKIP_BROWSER=1)");
    else if (!fs.existsSync(path.join(repoRoot, ".next/BUILD_ID"))) console.log("browser: skipped (no production build in .next; run `npm run build`)");
    else {
      const port = await freePort();
      const log = fs.openSync(path.join(dir, "web.log"), "w");
      web = spawn(path.join(repoRoot, "node_modules/.bin/next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: db.url, ENVACE_SECRET: SECRET, ENVACE_PUBLIC_URL: `http://127.0.0.1:${port}`, PORT: String(port), NODE_ENV: "production" },
        stdio: ["ignore", log, log],
      });
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(`${base}/sign-in`, 120_000, () => web!.exitCode === null);
      const res = await fetch(`${base}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base },
        body: JSON.stringify({ email: "bench-browser@example.test", password: "bench-password-1", name: "Bench Browser" }),
      });
      if (!res.ok) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
      const cookies = res.headers.getSetCookie().map((c) => {
        const [pair] = c.split(";");
        const eq = pair!.indexOf("=");
        return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), domain: "127.0.0.1", path: "/" };
      });
      const { chromium } = await import("playwright-core");
      const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
      try {
        const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
        await context.addCookies(cookies);
        const page = await context.newPage();
        // Warm the server (first hits load route modules) and the browser cache of static chunks.
        await page.goto(`${base}/runs/${runId}`);
        await page.locator("[data-testid=run-charts] svg.chart-svg").first().waitFor({ timeout: 60_000 });
        await page.goto(`${base}/trajectories/${longId}`);
        await page.locator("#turn-0").waitFor({ timeout: 60_000 });
        const measure = async (url: string, selector: string) => {
          const samples: number[] = [];
          for (let i = 0; i < 5; i++) {
            await page.goto("about:blank");
            const t = performance.now();
            await page.goto(url, { waitUntil: "commit" });
            await page.locator(selector).first().waitFor({ state: "visible", timeout: 60_000 });
            samples.push(performance.now() - t);
          }
          samples.sort((a, b) => a - b);
          return Number(percentile(samples, 50).toFixed(0));
        };
        visible.run_page = await measure(`${base}/runs/${runId}`, "[data-testid=run-charts] svg.chart-svg path");
        visible.trajectory_200_turns = await measure(`${base}/trajectories/${longId}`, "#turn-0 .tv-turn-body");
        const allTurns = await measure(`${base}/trajectories/${longId}#turn-199`, "#turn-199.current");
        const shots = process.env.BENCH_SCREENSHOTS;
        if (shots) {
          fs.mkdirSync(shots, { recursive: true });
          await page.goto(`${base}/runs/${runId}`);
          await page.locator("[data-testid=run-charts] svg.chart-svg path").first().waitFor();
          await page.screenshot({ path: path.join(shots, "run-page.png") });
          await page.goto(`${base}/runs/${runId}/trajectories`);
          await page.locator("[data-testid=trajectory-row]").first().waitFor();
          await page.locator("[data-testid=trajectory-row]").first().getByRole("button", { name: /show group/ }).click();
          await page.locator("[data-testid=group-member]").first().waitFor();
          await page.screenshot({ path: path.join(shots, "trajectory-list.png") });
          await page.goto(`${base}/trajectories/${longId}#turn-4`);
          await page.locator("#turn-4.current").waitFor();
          await page.locator("#turn-3").getByRole("button", { name: "Judge analysis" }).first().click().catch(() => {});
          await page.screenshot({ path: path.join(shots, "trajectory.png"), fullPage: false });
        }
        console.log(`browser (median of 5, navigation start → visible): run page charts ${visible.run_page} ms, 200-turn trajectory ${visible.trajectory_200_turns} ms (deep link to its last turn ${allTurns} ms)`);
      } finally {
        await browser.close();
      }
    }

    console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
    await prisma.$disconnect();
    // The in-process callers opened the change feed; closed here, it does not keep reconnecting to the
    // Postgres stopped below (the bench used to print its result and never exit).
    await (await import("../server/events")).closeChangeFeed();
    console.log(
      JSON.stringify({
        bench: "ui",
        scale: SCALE,
        seeded,
        machine: { ...machine, load_1m_after: Number(os.loadavg()[0]!.toFixed(2)) },
        over_150ms: Object.entries(results).filter(([, v]) => v.p95 > 150).map(([k]) => k),
        p95_ms: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.p95])),
        visible_ms: visible,
      }),
    );
  } finally {
    if (web && web.exitCode === null) {
      web.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
    }
    await db.stop().catch(() => {});
    if (!KEEP_DIR) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
