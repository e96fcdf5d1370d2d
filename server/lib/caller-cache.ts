/**
 * Who a request is, remembered per session cookie or API token. Every request a live page makes (and a
 * busy page makes several per committed step) would otherwise verify the cookie's signature and look the
 * session and its user up in the database again; with hundreds of open pages that is most of the web
 * process's database work (bench:load).
 *
 * Remembering is safe because forgetting is immediate: database triggers signal on `envace_auth` whenever a
 * session ends or is shortened, a user's role, name or email changes, or an API token is revoked
 * (prisma/migrations/*_auth_change_signals), whoever made the change — this process, another web
 * process, the CLI or plain SQL — and every web process forgets all its callers on that signal
 * (server/events.ts ChangeFeed "auth"). Signals are lost while the feed's connection is down, so then a
 * caller is kept only `UNLINKED_CALLER_TTL_MS`, and every change of the connection's state forgets
 * everyone. A session is never remembered past its own expiry.
 */
export const CALLER_TTL_MS = 60_000;
/** The most a remembered caller is trusted while auth signals cannot be heard. */
export const UNLINKED_CALLER_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** The change feed (server/events.ts ChangeFeed): "auth" (a caller-relevant change), "up"/"down"/"resync". */
interface AuthFeed {
  connected: boolean;
  on(event: string, listener: () => void): unknown;
}

interface Entry {
  value: unknown;
  rememberedAt: number;
  until: number;
}

export class CallerCache {
  private entries = new Map<string, Entry>();
  /** Look-ups in flight per key: the dozen requests a page opens with cost one. */
  private loading = new Map<string, Promise<unknown>>();
  /** Bumped by every `clear`: a look-up that began before one must not be remembered after it. */
  private generation = 0;
  /** Whether auth signals are heard (attached to a connected feed). */
  private linked = false;

  attach(feed: AuthFeed): void {
    feed.on("auth", () => this.clear());
    for (const name of ["resync", "down", "up"]) feed.on(name, () => this.clear());
    feed.on("down", () => (this.linked = false));
    feed.on("up", () => (this.linked = true));
    this.linked = feed.connected;
  }

  get<T>(key: string, now = Date.now()): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    const maxAge = this.linked ? CALLER_TTL_MS : UNLINKED_CALLER_TTL_MS;
    if (now >= hit.until || now - hit.rememberedAt >= maxAge) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value as T;
  }

  /** `expiresAt`: when the credential itself ends (a session's expiry); never remembered beyond it. */
  set(key: string, value: unknown, expiresAt?: Date, now = Date.now()): void {
    const until = Math.min(now + CALLER_TTL_MS, expiresAt ? expiresAt.getTime() : Infinity);
    this.entries.delete(key);
    this.entries.set(key, { value, rememberedAt: now, until });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * The remembered caller for `key`, or `load()`'s (shared with identical look-ups already in flight).
   * `load` resolves to the caller and, for a session, when it expires; a null caller is not remembered.
   */
  async recall<T>(key: string, load: () => Promise<{ value: T | null; expiresAt?: Date }>): Promise<T | null> {
    const known = this.get<T>(key);
    if (known !== undefined) return known;
    // `clear` drops look-ups in flight, so one found here began after the last signal.
    const inFlight = this.loading.get(key);
    if (inFlight) return inFlight as Promise<T | null>;
    const generation = this.generation;
    const value = load().then(({ value, expiresAt }) => {
      if (value !== null && generation === this.generation) this.set(key, value, expiresAt);
      return value;
    });
    this.loading.set(key, value);
    const done = () => {
      if (this.loading.get(key) === value) this.loading.delete(key);
    };
    value.then(done, done);
    return value;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.loading.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

const globalForCallers = globalThis as unknown as { __envaceCallers?: CallerCache };

/** This process's remembered callers, attached to its change feed on first use (`feed`: server/events.ts getChangeFeed). */
export function callerCache(feed: () => AuthFeed): CallerCache {
  if (!globalForCallers.__envaceCallers) {
    const cache = new CallerCache();
    globalForCallers.__envaceCallers = cache;
    cache.attach(feed());
  }
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

/** Forget every remembered caller of this process (after an auth action or a mutation made through it). */
export function forgetCallers(): void {
  globalForCallers.__envaceCallers?.clear();
}
