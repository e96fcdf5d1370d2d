/**
 * The browser's tRPC link. Batched calls go out as ONE POST with the inputs in the body: a page that
 * asks for many chart series at once (compare with several runs) would otherwise put every input in
 * the URL of one GET and get 431 from the web server (Node refuses request headers over 16 KB). The
 * route accepts POSTed queries (`allowMethodOverride` in app/api/trpc) under the body limit of
 * server/lib/body-limit.ts; a batch is capped at MAX_BATCH_ITEMS calls so a body stays well inside it.
 */
import { httpBatchLink } from "@trpc/client";
import superjson from "superjson";

/** At most this many calls per request (the server refuses larger batches: MAX_BATCH_SIZE). */
export const MAX_BATCH_ITEMS = 50;

/**
 * fetch, but an answer that is not tRPC's JSON (a web server's 431, a proxy's 502 page) fails with its
 * HTTP status instead of "Unexpected end of JSON input", so the page can say what went wrong.
 */
export const statusAwareFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const res = await fetch(input, init);
  if (!res.ok && !(res.headers.get("content-type") ?? "").includes("json")) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`the server answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
  }
  return res;
};

/** `url` and `headers` are for tests that call a server from Node; the browser uses the defaults. */
export function appBatchLink({ url = "/api/trpc", headers }: { url?: string; headers?: Record<string, string> } = {}) {
  return httpBatchLink({ url, transformer: superjson, methodOverride: "POST", maxItems: MAX_BATCH_ITEMS, headers, fetch: statusAwareFetch });
}
