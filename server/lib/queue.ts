import PgBoss from "pg-boss";
import { RUN_QUEUE, runJobOptions, type RunJob } from "../../contracts/jobs";

const globalForBoss = globalThis as unknown as { __envaceBoss?: Promise<PgBoss> };

/** The web app's pg-boss handle: it only sends jobs, so it runs no maintenance or scheduling. */
export function getBoss(): Promise<PgBoss> {
  globalForBoss.__envaceBoss ??= (async () => {
    const boss = new PgBoss({ connectionString: process.env.DATABASE_URL, max: 3, supervise: false, schedule: false });
    boss.on("error", (err) => console.error("pg-boss:", err.message));
    await boss.start();
    await boss.createQueue(RUN_QUEUE);
    return boss;
  })();
  return globalForBoss.__envaceBoss;
}

type SqlExecutor = { $queryRawUnsafe: (sql: string, ...values: unknown[]) => Promise<unknown> };

/** Send a run job inside the caller's Prisma transaction, so a run row never exists without its job. */
export async function sendRunJob(tx: SqlExecutor, job: RunJob): Promise<void> {
  const boss = await getBoss();
  await boss.send(RUN_QUEUE, job, {
    ...runJobOptions(),
    db: { executeSql: async (text, values) => ({ rows: (await tx.$queryRawUnsafe(text, ...values)) as unknown[] }) },
  });
}
