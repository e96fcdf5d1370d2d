/**
 * "The database is not there right now", recognised across the layers that report it: Prisma (P1001 …),
 * its driver adapter (DatabaseNotReachable, ConnectionClosed …), node-postgres, Postgres itself (08xxx,
 * 57P01-57P03 while it shuts down or starts up) and the socket below them. The worker waits out such
 * errors instead of failing the run, and the web answers 503 for them; anything else is a real error.
 */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "TlsConnectionError"]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"]);
const MESSAGES = /^(Connection terminated|Client has encountered a connection error|Can't reach database server|Connection ended unexpectedly)|terminating connection due to administrator command|the database system is (starting up|shutting down)/;

interface ErrorShape {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

function isUnavailableSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === "53300";
}

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 6) return false;
  const e = err as ErrorShape;
  for (const c of [e.code, e.originalCode]) {
    if (typeof c === "string" && (PRISMA_CODES.has(c) || SOCKET_CODES.has(c) || isUnavailableSqlState(c))) return true;
  }
  if (typeof e.kind === "string" && ADAPTER_KINDS.has(e.kind)) return true;
  if (typeof e.message === "string" && MESSAGES.test(e.message)) return true;
  if (err instanceof AggregateError && err.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1) || isDatabaseUnavailable(e.meta?.driverAdapterError, depth + 1);
}
