import { TRPCError } from "@trpc/server";
import { getAuth, type UserRole } from "../auth";
import { prisma } from "../../lib/db";
import { sha256 } from "../../lib/secrets";
import { callerCache, sessionKey } from "../lib/caller-cache";
import { isDatabaseUnavailable } from "../lib/db-errors";
import { getChangeFeed } from "../events";

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: UserRole;
  /** How the caller authenticated. */
  via: "session" | "token";
}

/**
 * Resolve the caller from a personal API token (Bearer envace_…) or a better-auth session cookie.
 * Found callers are remembered until an auth change signal (server/lib/caller-cache.ts); `fresh` looks them up
 * anyway (the event stream: opened once per tab, and it must not open while the database is away).
 */
export async function resolveUser(headers: Headers, opts: { fresh?: boolean } = {}): Promise<SessionUser | null> {
  const callers = callerCache(getChangeFeed);
  const authz = headers.get("authorization");
  if (authz?.startsWith("Bearer ")) {
    const tokenHash = sha256(authz.slice(7).trim());
    const load = () => tokenCaller(tokenHash).then((value) => ({ value }));
    return opts.fresh ? (await load()).value : callers.recall(`token:${tokenHash}`, load);
  }
  const key = sessionKey(headers);
  const load = () => sessionCaller(headers);
  return opts.fresh || !key ? (await load()).value : callers.recall(key, load);
}

async function tokenCaller(tokenHash: string): Promise<SessionUser | null> {
  const row = await prisma.apiToken.findUnique({
    where: { tokenHash },
    select: { id: true, revokedAt: true, user: { select: { id: true, email: true, name: true, role: true } } },
  });
  if (!row || row.revokedAt) return null;
  // Best effort (and once per remembered period, not per request); a failed update must not fail the request.
  prisma.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => {});
  return { ...row.user, role: row.user.role as UserRole, via: "token" };
}

async function sessionCaller(headers: Headers): Promise<{ value: SessionUser | null; expiresAt?: Date }> {
  const session = await getAuth().api.getSession({ headers });
  if (!session) return { value: null };
  const u = session.user as { id: string; email: string; name: string; role?: string };
  return { value: { id: u.id, email: u.email, name: u.name, role: (u.role ?? "member") as UserRole, via: "session" }, expiresAt: new Date(session.session.expiresAt) };
}

export async function createContext(opts: { headers: Headers }) {
  try {
    const user = await resolveUser(opts.headers);
    return { user, headers: opts.headers };
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "the database is unavailable right now; try again in a moment" });
    throw err;
  }
}

export type Context = Awaited<ReturnType<typeof createContext>>;
