/**
 * Accounts and sessions through better-auth (email + password); we never hash passwords or mint
 * session tokens ourselves. Roles: admin | member | viewer; the first account on a fresh install is admin.
 */
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { getPrisma } from "../lib/db";
import { serverSecret } from "../lib/secrets";

export const roles = ["admin", "member", "viewer"] as const;
export type UserRole = (typeof roles)[number];

function defaultRole(): UserRole {
  const r = process.env.ENVACE_DEFAULT_ROLE;
  return r === "viewer" || r === "admin" ? r : "member";
}

function createAuth() {
  const prisma = getPrisma();
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
    user: { additionalFields: { role: { type: "string", required: false, defaultValue: "member", input: false } } },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            const role = (await prisma.user.count()) === 0 ? "admin" : defaultRole();
            return { data: { ...user, role } };
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
