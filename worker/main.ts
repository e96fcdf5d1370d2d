/** Worker process entry point: `npm run worker` (DATABASE_URL must point at a migrated database). */
import { createPrisma } from "../lib/db";
import { isDatabaseUnavailable } from "../lib/db-errors";
import { OutageNotice, shortMessage, whileDatabaseDown } from "./runner/durable";
import { evalExecutor } from "./runner/executors/eval";
import { trainExecutor } from "./runner/executors/train";
import { RunWorker } from "./runner/worker";
import { exitWithSupervisor } from "../lib/supervised";

// Under `npm start`: a supervisor that died (kill -9) stops this worker the way SIGTERM does (also while it
// still waits for the database at start-up).
exitWithSupervisor({ log: (l) => console.warn(`[worker] ${l}`) });

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("worker: DATABASE_URL is not set (start everything with `npm start`, or set it)");
  process.exit(1);
}
if (!process.env.ENVACE_SECRET) {
  console.error("worker: ENVACE_SECRET is not set (it decrypts node API keys)");
  process.exit(1);
}

// A database outage must not end the worker (worker/runner/durable.ts). The one rejection nobody can
// catch is a pg-boss call it does not await failing while the database is away; a job left active is
// simply delivered again after its expiry and finds its run claimed or finished. Anything else still ends the process.
process.on("unhandledRejection", (reason) => {
  if (isDatabaseUnavailable(reason)) {
    console.warn(`[worker] database unavailable: ${shortMessage(reason)} (ignored; it will be retried)`);
    return;
  }
  console.error("[worker] unhandled rejection:", reason);
  process.exit(1);
});

const prisma = createPrisma(databaseUrl);
const startup = new OutageNotice("worker start", (m) => console.warn(`[worker] ${m}`));
try {
  // Started before the database (or during an outage): wait for it.
  await whileDatabaseDown(() => prisma.$queryRaw`select 1`, { onDown: (e) => startup.failed(e), onUp: () => startup.ok() });
} catch (err) {
  console.error(`worker: cannot use the database: ${(err as Error).message}`);
  process.exit(1);
}

const worker = new RunWorker({
  prisma,
  databaseUrl,
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 2),
  selectExecutor: (config) => (config.kind === "train" ? (ctx) => trainExecutor(ctx) : (ctx) => evalExecutor(ctx)),
});
await whileDatabaseDown(() => worker.start(), { onDown: (e) => startup.failed(e), onUp: () => startup.ok() });

let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    await worker.stop();
    await prisma.$disconnect();
    process.exit(0);
  });
}
