/**
 * Who a request is, remembered for a few seconds per session cookie or API token. Every request a live
 * page makes (and a busy page makes several per committed step) would otherwise verify the cookie's
 * signature and look the session and its user up in the database again; with hundreds of open pages
 * that is most of the web process's database work.
 *
 * Only answers that found a caller are kept, for `CALLER_TTL_MS`. The price: a session signed out or
 * a token revoked elsewhere is still honoured for up to that long by a process that had just seen it.
 * Anything done through this process (a tRPC mutation, any auth action: sign-out, revoke, role change)
 * forgets every entry at once (server/trpc/init.ts, app/api/auth).
 */
export const CALLER_TTL_MS = 5000;
const MAX_ENTRIES = 10_000;

const globalForCallers = globalThis as unknown as { __envaceCallers?: Map<string, { value: unknown; until: number }> };

function entries() {
  globalForCallers.__envaceCallers ??= new Map();
  return globalForCallers.__envaceCallers;
}

/** The cache key of a request's credentials: its session cookie's signed value (null: none). */
export function sessionKey(headers: Headers): string | null {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=");
    const name = part.slice(0, eq).trim();
    // better-auth's session cookie, "__Secure-" prefixed over https.
    if (eq > 0 && name.endsWith("better-auth.session_token")) return `session:${part.slice(eq + 1).trim()}`;
  }
  return null;
}

export function rememberedCaller<T>(key: string): T | undefined {
  const hit = entries().get(key);
  if (!hit) return undefined;
  if (hit.until <= Date.now()) {
    entries().delete(key);
    return undefined;
  }
  return hit.value as T;
}

export function rememberCaller(key: string, value: unknown): void {
  const map = entries();
  map.delete(key);
  map.set(key, { value, until: Date.now() + CALLER_TTL_MS });
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

export function forgetCallers(): void {
  globalForCallers.__envaceCallers?.clear();
}
