import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import pg from "pg";

/** The Prisma client (JS engine over @prisma/adapter-pg) for the web server and the worker: one per process, kept across Next.js dev reloads. */
const globalForPrisma = globalThis as unknown as { __envacePrisma?: PrismaClient };

export function createPrisma(url = process.env.DATABASE_URL): PrismaClient {
  if (!url) throw new Error("DATABASE_URL is not set");
  // A connect that cannot finish (server down, network gone) fails after 10 s instead of hanging the request.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000, keepAlive: true });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the pool reconnects on the next query and the failed query reports its own error.
  pool.on("error", (err) => console.error(`database connection lost: ${err.message}`));
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

export function getPrisma(): PrismaClient {
  globalForPrisma.__envacePrisma ??= createPrisma();
  return globalForPrisma.__envacePrisma;
}

/** Lazy proxy so importing this module never connects (Next.js build imports route modules). */
export const prisma: PrismaClient = new Proxy({} as PrismaClient, {
  get(_t, prop) {
    const client = getPrisma() as unknown as Record<string | symbol, unknown>;
    const value = client[prop];
    return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(client) : value;
  },
});
