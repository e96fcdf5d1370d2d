/**
 * Per-account sign-in throttling: after MAX_FAILURES wrong passwords for one email within WINDOW_MS,
 * further sign-ins for that email are refused (429) until the oldest of those failures is WINDOW_MS old.
 * It complements the per-address limit: guessing one account's password from many addresses is slowed
 * down, while users behind one proxy (one address) do not share a bucket. Unknown emails are counted the
 * same way, so the answer never tells whether an account exists. Kept in memory: one web process.
 */

export const MAX_FAILURES = 5;
export const WINDOW_MS = 15 * 60 * 1000;
const MAX_TRACKED_ACCOUNTS = 100_000;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterS: number };

export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = MAX_FAILURES,
    private readonly windowMs = WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  static key(email: string): string {
    return email.trim().toLowerCase();
  }

  private recent(key: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  check(email: string): ThrottleDecision {
    const list = this.recent(SignInThrottle.key(email));
    if (list.length < this.maxFailures) return { allowed: true };
    const oldest = list[list.length - this.maxFailures]!;
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000)) };
  }

  recordFailure(email: string): void {
    const key = SignInThrottle.key(email);
    const list = this.recent(key);
    list.push(this.now());
    this.failures.set(key, list.slice(-this.maxFailures));
    if (this.failures.size > MAX_TRACKED_ACCOUNTS) this.prune();
  }

  recordSuccess(email: string): void {
    this.failures.delete(SignInThrottle.key(email));
  }

  private prune() {
    for (const key of [...this.failures.keys()]) this.recent(key);
    // Still too many live entries: drop the oldest-inserted ones.
    for (const key of this.failures.keys()) {
      if (this.failures.size <= MAX_TRACKED_ACCOUNTS) break;
      this.failures.delete(key);
    }
  }
}

const globalForThrottle = globalThis as unknown as { __envaceSignInThrottle?: SignInThrottle };

export function signInThrottle(): SignInThrottle {
  globalForThrottle.__envaceSignInThrottle ??= new SignInThrottle();
  return globalForThrottle.__envaceSignInThrottle;
}
