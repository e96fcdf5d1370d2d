/** The one error of the Tinker client: what failed, whether a retry may help, and the server's code. */

export type FailureCategory = "user" | "server" | "unknown" | "transport";
export type TinkerErrorKind = "http" | "transport" | "failed" | "protocol" | "input" | "deadline";

export class TinkerError extends Error {
  /** True when an earlier attempt of the same POST may have reached the server (lost reply). */
  afterLostReply = false;
  constructor(
    message: string,
    readonly status: number | null,
    readonly category: FailureCategory,
    readonly retryable: boolean,
    readonly code?: string,
    readonly kind: TinkerErrorKind = "http",
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "TinkerError";
  }
}

/** An HTTP error with the reply's body, and whether that body said nothing (a proxy's bare status). */
export type HttpTinkerError = TinkerError & { body?: unknown; bare?: boolean };

/** "fetch failed (connect ECONNREFUSED 127.0.0.1:9)": fetch hides the socket error in its cause. */
export function withCause(e: Error): string {
  let inner: unknown = e;
  for (let depth = 0; depth < 5 && inner instanceof Error && inner.cause instanceof Error; depth++) inner = inner.cause;
  return inner !== e && inner instanceof Error ? `${e.message} (${inner.message})` : e.message;
}
