/**
 * Recognising "the database is not there right now" across the layers that report it: Prisma (P1001 …),
 * its driver adapter (DatabaseNotReachable, ConnectionClosed …), node-postgres and the socket below it.
 * Such errors become 503 "try again shortly", never a 500 with the driver's text.
 */
const PRISMA_UNAVAILABLE = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const ADAPTER_UNAVAILABLE = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections", "TlsConnectionError"]);
const SOCKET_UNAVAILABLE = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"]);

interface ErrorLike {
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
  originalCode?: unknown;
}

function isPostgresUnavailableCode(code: string): boolean {
  // 08xxx connection exceptions; 57P01-57P03 admin/crash shutdown, cannot connect now; 53300 too many connections.
  return code.startsWith("08") || /^57P0[1-3]$/.test(code) || code === "53300";
}

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 6) return false;
  const e = err as ErrorLike;
  const code = typeof e.code === "string" ? e.code : typeof e.originalCode === "string" ? e.originalCode : "";
  if (PRISMA_UNAVAILABLE.has(code) || SOCKET_UNAVAILABLE.has(code) || isPostgresUnavailableCode(code)) return true;
  if (typeof e.kind === "string" && ADAPTER_UNAVAILABLE.has(e.kind)) return true;
  if (typeof e.message === "string" && /^Connection terminated|Client has encountered a connection error|Can't reach database server/.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1) || isDatabaseUnavailable(e.meta?.driverAdapterError, depth + 1);
}
