/**
 * The run side of `npm run bench:load`: a real RunWorker (claim, heartbeat every second, fenced commits,
 * the run journal) whose executor replays recorded-shaped training steps instead of training, as if the
 * policy sat on a fast remote node: every BENCH_STEP_S seconds a step with its
 * committed rows (`commitStep`, the worker's own commit path), a log line, and a checkpoint every fifth
 * step — the signals a real run sends the web app, without the embedded model's CPU. Between
 * `pause <s>` lines on stdin it commits nothing and only heartbeats (the bench checks that this fans
 * nothing out). Env: DATABASE_URL, BENCH_STEP_S, BENCH_TURNS_PER_STEP.
 */
import readline from "node:readline";
import { createPrisma } from "../lib/db";
import { RunWorker } from "../worker/runner/worker";
import { commitStep } from "../worker/runner/persist";
import type { Executor } from "../worker/runner/context";
import { syntheticStep } from "./persist";

const databaseUrl = process.env.DATABASE_URL!;
const STEP_S = Number(process.env.BENCH_STEP_S ?? 2);
const TURNS = Number(process.env.BENCH_TURNS_PER_STEP ?? 320);
const prisma = createPrisma(databaseUrl);

let pausedUntil = 0;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = /^pause (\d+(?:\.\d+)?)$/.exec(line.trim());
  if (m) pausedUntil = Date.now() + Number(m[1]) * 1000;
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const replay: Executor = async (ctx) => {
  const { runId } = ctx;
  const last = await prisma.step.findFirst({ where: { runId, kind: "train" }, orderBy: { index: "desc" }, select: { index: true } });
  const keys = (await prisma.$queryRaw<{ key: string }[]>`select distinct key from metric_point where "runId" = ${runId}`).map((r) => r.key);
  const total = (await prisma.run.findUniqueOrThrow({ where: { id: runId }, select: { totalSteps: true } })).totalSteps;
  for (let step = (last?.index ?? 0) + 1; step <= total && !ctx.signal.aborted; step++) {
    while (Date.now() < pausedUntil) await sleep(100);
    const started = Date.now();
    const startedAt = new Date();
    // The rollouts and the update happen on the node meanwhile; a training run writes nothing until its commit.
    await sleep(STEP_S * 1000 * 0.8);
    const result = syntheticStep(step, TURNS, 8, 4);
    for (const key of keys) result.metrics[key] ??= Math.sin(step / 10 + key.length) + Math.random() * 0.1;
    const checkpoint = step % 5 === 0;
    await commitStep(prisma, {
      runId,
      workerId: ctx.workerId,
      result,
      phase: "train",
      startedAt,
      statePath: `tinker://bench/weights/step-${step}`,
      checkpoint: checkpoint ? { nodeName: "bench-remote", statePath: `tinker://bench/weights/step-${step}`, samplerPath: `tinker://bench/sampler_weights/step-${step}` } : undefined,
      progress: { step, total, etaSeconds: (total - step) * STEP_S },
    });
    await ctx.log("info", `step ${step}/${total}: replayed ${TURNS} turns${checkpoint ? ", checkpoint saved" : ""}`);
    await sleep(Math.max(0, STEP_S * 1000 - (Date.now() - started)));
  }
};

const worker = new RunWorker({ prisma, databaseUrl, selectExecutor: () => replay, concurrency: 1, logger: () => {} });
await worker.start();
console.log("replayer ready");
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    void worker.stop().then(() => process.exit(0));
  });
}
