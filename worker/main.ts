/** Worker process entry point: `npm run worker` (DATABASE_URL must point at a migrated database). */
import { createPrisma } from "../lib/db";
import { evalExecutor } from "./runner/executors/eval";
import { trainExecutor } from "./runner/executors/train";
import { RunWorker } from "./runner/worker";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("worker: DATABASE_URL is not set (start everything with `npm start`, or set it)");
  process.exit(1);
}
if (!process.env.ENVACE_SECRET) {
  console.error("worker: ENVACE_SECRET is not set (it decrypts node API keys)");
  process.exit(1);
}

const prisma = createPrisma(databaseUrl);
try {
  await prisma.$queryRaw`select 1`;
} catch (err) {
  console.error(`worker: cannot reach the database: ${(err as Error).message}`);
  process.exit(1);
}

const worker = new RunWorker({
  prisma,
  databaseUrl,
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 2),
  selectExecutor: (config) => (config.kind === "train" ? (ctx) => trainExecutor(ctx) : (ctx) => evalExecutor(ctx)),
});
await worker.start();

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
