import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";
import pg from "pg";

/** The Prisma client (JS engine over @prisma/adapter-pg) for the web server and the worker: one per process, kept across Next.js dev reloads. */
const globalForPrisma = globalThis as unknown as { __envacePrisma?: PrismaClient };

/** The pool's open connections by server process id, per client made by createPrisma (see `connectionOf`). */
const connectionsOf = new WeakMap<PrismaClient, Map<number, pg.PoolClient>>();

export function createPrisma(url = process.env.DATABASE_URL): PrismaClient {
  if (!url) throw new Error("DATABASE_URL is not set");
  // A connect that cannot finish (server down, network gone) fails after 10 s instead of hanging the request.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000, keepAlive: true });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the pool reconnects on the next query and the failed query reports its own error.
  pool.on("error", (err) => console.error(`database connection lost: ${err.message}`));
  const connections = new Map<number, pg.PoolClient>();
  pool.on("connect", (client) => {
    const pid = (client as unknown as { processID?: number }).processID;
    if (typeof pid === "number") connections.set(pid, client as pg.PoolClient);
  });
  pool.on("remove", (client) => {
    const pid = (client as unknown as { processID?: number }).processID;
    if (typeof pid === "number" && connections.get(pid) === client) connections.delete(pid);
  });
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  connectionsOf.set(prisma, connections);
  return prisma;
}

/**
 * The node-postgres connection behind the server process `pid` (`select pg_backend_pid()`), when
 * `prisma` was made by createPrisma: inside an interactive transaction, the very connection holding it.
 * For bulk writes only (worker/runner/persist.ts): a statement sent on it runs in the transaction but
 * skips Prisma's query compiler, which copies every string parameter in and out (a 5.8 MB one: 290 ms
 * through Prisma against 56 ms on the bare connection, measured once).
 * Null for any other client (another adapter, a test double): callers fall back to Prisma.
 */
export function connectionOf(prisma: PrismaClient, pid: number): pg.PoolClient | null {
  // The lazy `prisma` below is a Proxy: its connections are those of the client it stands for.
  const client = prisma === lazyPrisma ? globalForPrisma.__envacePrisma : prisma;
  return (client && connectionsOf.get(client)?.get(pid)) ?? null;
}

export function getPrisma(): PrismaClient {
  globalForPrisma.__envacePrisma ??= createPrisma();
  return globalForPrisma.__envacePrisma;
}

/** Lazy proxy so importing this module never connects (Next.js build imports route modules). */
const lazyPrisma: PrismaClient = new Proxy({} as PrismaClient, {
  get(_t, prop) {
    const client = getPrisma() as unknown as Record<string | symbol, unknown>;
    const value = client[prop];
    return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(client) : value;
  },
});
export const prisma = lazyPrisma;
