/**
 * The embedded PostgreSQL as one supervised service of `npm start` (scripts/dev.ts): this process runs the
 * server (already initialised and migrated by dev.ts) and exits when it does, so the supervisor restarts
 * both like any other service; on SIGTERM, or when the supervisor is gone, it stops the server (fast
 * shutdown) and exits. Layout and port as in scripts/lib/database.ts (ENVACE_PG_DATA_DIR,
 * ENVACE_PG_PASSWORD_FILE, EMBEDDED_PG_PORT, ENVACE_PG_DATABASE).
 */
import { exitWithSupervisor } from "../lib/supervised";
import { embeddedLayout } from "./lib/database";
import { EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedDb } from "./lib/postgres";

const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
const layout = embeddedLayout();
let stopping = false;
let db: EmbeddedDb | null = null;

async function stop() {
  if (stopping) return;
  stopping = true;
  await db?.stop();
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
exitWithSupervisor({ stop });

try {
  db = await startEmbeddedPostgres({
    dataDir: layout.dataDir,
    passwordFile: layout.passwordFile,
    runtimeDir: layout.runtimeDir,
    port,
    database: process.env.ENVACE_PG_DATABASE || "envace",
    // This process's group (the supervisor gave it its own): a stop of the service reaches the server too.
    ownProcessGroup: false,
    onNote: (l) => console.log(l),
    onExit: (code, signal) => {
      if (stopping) return;
      console.error(`PostgreSQL exited (${signal ?? `code ${code}`}); this service exits so the supervisor restarts it`);
      process.exit(1);
    },
  });
  console.log(`PostgreSQL pid ${db.pid()} listening on 127.0.0.1:${port} (service pid ${process.pid})`);
} catch (err) {
  console.error(err instanceof EmbeddedPostgresError ? err.message : `embedded PostgreSQL failed: ${(err as Error).message}`);
  process.exit(1);
}
