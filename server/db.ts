import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@prisma/client";

/** One Prisma client per process (kept across Next.js dev reloads). */
const globalForPrisma = globalThis as unknown as { __envacePrisma?: PrismaClient };

export function createPrisma(url = process.env.DATABASE_URL): PrismaClient {
  if (!url) throw new Error("DATABASE_URL is not set");
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) });
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
