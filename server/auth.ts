/**
 * Accounts and sessions through better-auth (email + password); we never hash passwords or mint
 * session tokens ourselves. Roles: admin | member | viewer; the first account on a fresh install is admin.
 */
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import type { PrismaClient } from "@prisma/client";
import { getPrisma } from "../lib/db";
import { serverSecret } from "../lib/secrets";
import { trustedClientAddressHeader } from "./lib/client-address";
import { isDatabaseUnavailable } from "./lib/db-errors";

export const roles = ["admin", "member", "viewer"] as const;
export type UserRole = (typeof roles)[number];

function defaultRole(): UserRole {
  const r = process.env.ENVACE_DEFAULT_ROLE;
  return r === "viewer" || r === "admin" ? r : "member";
}

/** Any constant: the lock that serialises "is there an admin yet?" between concurrent sign-ups. */
const FIRST_ADMIN_LOCK = 727_001;

/**
 * Make `userId` the admin if it is the install's first account. Under an advisory lock, so of concurrent
 * first sign-ups exactly one wins: the oldest account among those that exist, and only while no admin
 * exists. A later account never becomes admin this way, even if every admin was demoted since.
 */
export async function promoteIfFirstAccount(prisma: PrismaClient, userId: string): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`select pg_advisory_xact_lock(${FIRST_ADMIN_LOCK})`;
    const admin = await tx.user.findFirst({ where: { role: "admin" }, select: { id: true } });
    if (admin) return false;
    const oldest = await tx.user.findFirst({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true } });
    if (oldest?.id !== userId) return false;
    await tx.user.update({ where: { id: userId }, data: { role: "admin" } });
    return true;
  });
}

function createAuth() {
  const prisma = getPrisma();
  const addressHeader = trustedClientAddressHeader();
  return betterAuth({
    database: prismaAdapter(prisma, { provider: "postgresql" }),
    secret: serverSecret(),
    baseURL: process.env.ENVACE_PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`,
    trustedOrigins: (request) => {
      // Same-origin requests from whatever host the UI was opened on (localhost, 127.0.0.1, a LAN name).
      const host = request?.headers.get("host");
      return host ? [`http://${host}`, `https://${host}`] : [];
    },
    emailAndPassword: { enabled: true, autoSignIn: true, minPasswordLength: 8 },
    // Per client address (better-auth's rules: sign-in and sign-up 3 per 10 s, the rest 100 per 10 s), on
    // in every mode. The address is the one scripts/web.ts resolved from the socket (X-Forwarded-For only
    // via ENVACE_TRUSTED_PROXIES); without that server there is no trustworthy address and only the
    // per-account throttle (server/lib/sign-in-throttle.ts) applies.
    rateLimit: { enabled: true, storage: "memory" },
    logger: {
      level: "warn",
      // One line per problem: during a database outage every request would otherwise print a Prisma stack.
      log: (level, message, ...args) => {
        const err = args.find((a): a is Error => a instanceof Error);
        const detail = err ? (isDatabaseUnavailable(err) ? "database unavailable" : (err.stack ?? err.message)) : "";
        console[level === "debug" || level === "info" ? "log" : level](`[auth] ${message}${detail ? `: ${detail}` : ""}`);
      },
    },
    advanced: {
      ipAddress: addressHeader ? { ipAddressHeaders: [addressHeader] } : { disableIpTracking: true },
    },
    user: { additionalFields: { role: { type: "string", required: false, defaultValue: "member", input: false } } },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => ({ data: { ...user, role: defaultRole() } }),
          after: async (user) => {
            await promoteIfFirstAccount(prisma, user.id);
          },
        },
      },
    },
  });
}

type Auth = ReturnType<typeof createAuth>;
const globalForAuth = globalThis as unknown as { __envaceAuth?: Auth };

export function getAuth(): Auth {
  globalForAuth.__envaceAuth ??= createAuth();
  return globalForAuth.__envaceAuth;
}
