/**
 * Request body limits of the web process, per route, in one table. The web server (scripts/web.ts,
 * through scripts/lib/web-front.ts) applies them to every request before anything reads a byte of the
 * body; the route handlers apply them again (app/api/trpc, app/api/auth, the REST handler in
 * server/openapi.ts), so a bare `next start` is limited on the API too. Pure: no I/O.
 */
import superjson from "superjson";

/** Largest dataset file accepted, in bytes of UTF-8 text (the whole file travels in one request). */
export const MAX_DATASET_BYTES = 20 * 1024 * 1024;
/** Default for every route: configs, report notes (≤ 50,000 characters) and filters fit with room to spare. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/**
 * A dataset file travels as one JSON string: its 20 MB of text grow with JSON escaping (quotes, newlines,
 * backslashes), so the body may be up to about twice the file.
 */
export const DATASET_IMPORT_BODY_LIMIT = 2 * MAX_DATASET_BYTES + DEFAULT_BODY_LIMIT;
/** Sign-in, sign-up and the other account endpoints carry a few short fields. */
export const AUTH_BODY_LIMIT = 64 * 1024;

/** tRPC procedures that need more than the default. */
const procedureLimits: Record<string, number> = {
  "datasets.import": DATASET_IMPORT_BODY_LIMIT,
};

/** REST endpoints (method + path under /api/v1) that need more than the default. */
const restLimits: Record<string, number> = {
  "POST /datasets": DATASET_IMPORT_BODY_LIMIT,
};

export const TRPC_PREFIX = "/api/trpc";
export const REST_PREFIX = "/api/v1";
export const AUTH_PREFIX = "/api/auth";

/** "/api/trpc/runs.list,runs.get" → ["runs.list", "runs.get"]. */
export function trpcProcedurePaths(pathname: string): string[] {
  let tail = pathname.startsWith(`${TRPC_PREFIX}/`) ? pathname.slice(TRPC_PREFIX.length + 1) : "";
  try {
    tail = decodeURIComponent(tail);
  } catch {
    /* a malformed escape names no procedure we know: the default applies */
  }
  return tail ? tail.split(",") : [];
}

/** The limit for a tRPC request: the largest of the procedures it names (a batch names several). */
export function trpcBodyLimit(procedurePaths: string[]): number {
  return Math.max(DEFAULT_BODY_LIMIT, ...procedurePaths.map((p) => procedureLimits[p] ?? DEFAULT_BODY_LIMIT));
}

/** The limit for a REST request (`pathname` under /api/v1, e.g. "/datasets"). */
export function restBodyLimit(method: string, pathname: string): number {
  const path = pathname.replace(/\/+$/, "") || "/";
  return restLimits[`${method.toUpperCase()} ${path}`] ?? DEFAULT_BODY_LIMIT;
}

export interface RouteLimit {
  limit: number;
  /** What the limit is for, in the 413's message ("runs.create", "POST /api/v1/runs", "this request"). */
  what: string;
  /** tRPC routes answer in tRPC's error shape (the client shows the message like any other error). */
  trpc?: { paths: string[]; batch: boolean };
}

/**
 * The body limit of any request the web process serves, pages and static files included. A route's
 * larger limit (a dataset import) is only for callers who may use it: `signedIn: false` (the web server:
 * no credentials on the request; a route: no member behind them) gets the default, so nobody makes the
 * process hold 41 MB without a login.
 */
export function bodyLimitFor(method: string, url: string, opts: { signedIn?: boolean } = {}): RouteLimit {
  const route = routeLimit(method, url);
  if (opts.signedIn !== false || route.limit <= DEFAULT_BODY_LIMIT) return route;
  return { ...route, limit: DEFAULT_BODY_LIMIT, what: `${route.what} without a login` };
}

/** Whether a request carries credentials at all (an API token or a session cookie); checked later by the routes. */
export function carriesCredentials(headers: { authorization?: string | null; cookie?: string | null }): boolean {
  return /^Bearer\s+\S/i.test(headers.authorization ?? "") || /(^|;\s*)[\w.-]*session_token=/.test(headers.cookie ?? "");
}

function routeLimit(method: string, url: string): RouteLimit {
  const parsed = new URL(url, "http://localhost");
  const pathname = parsed.pathname;
  if (pathname === TRPC_PREFIX || pathname.startsWith(`${TRPC_PREFIX}/`)) {
    const paths = trpcProcedurePaths(pathname);
    return { limit: trpcBodyLimit(paths), what: paths.join(", ") || "this request", trpc: { paths, batch: parsed.searchParams.get("batch") === "1" } };
  }
  if (pathname.startsWith(`${REST_PREFIX}/`)) {
    const rest = pathname.slice(REST_PREFIX.length);
    return { limit: restBodyLimit(method, rest), what: `${method.toUpperCase()} ${pathname}` };
  }
  if (pathname === AUTH_PREFIX || pathname.startsWith(`${AUTH_PREFIX}/`)) return { limit: AUTH_BODY_LIMIT, what: "the account endpoints" };
  return { limit: DEFAULT_BODY_LIMIT, what: "this request" };
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

export function tooLargeMessage(route: Pick<RouteLimit, "limit" | "what">): string {
  return `the request body is larger than ${formatBytes(route.limit)}, the limit for ${route.what}`;
}

/**
 * The 413's body: tRPC's error shape on /api/trpc (one entry per call of a batch), else the REST error
 * shape `{ code, message, fieldErrors }`.
 */
export function tooLargeBody(route: RouteLimit): string {
  const message = tooLargeMessage(route);
  if (route.trpc) {
    const shape = (path: string) => ({
      error: superjson.serialize({ message, code: -32013, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path, fieldErrors: null } }),
    });
    const { paths, batch } = route.trpc;
    return JSON.stringify(batch ? paths.map(shape) : shape(paths[0] ?? ""));
  }
  return JSON.stringify({ code: "PAYLOAD_TOO_LARGE", message, fieldErrors: [] });
}
