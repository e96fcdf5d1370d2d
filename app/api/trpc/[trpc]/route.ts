import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import superjson from "superjson";
import { appRouter } from "@/server/root";
import { BodyTooLargeError, formatBytes, readBodyWithin, trpcBodyLimit, withBody } from "@/server/lib/body-limit";
import { withSplicing } from "@/server/lib/spliced-json";
import { createContext } from "@/server/trpc/context";

export const dynamic = "force-dynamic";

/**
 * Calls per batched request. The browser batches by POST (app/_lib/trpc-links.ts, at most 50 calls),
 * so a page of many chart series never meets the URL limit of a GET; the body limit still applies.
 */
const MAX_BATCH_SIZE = 100;

/** "/api/trpc/runs.list,runs.get" → ["runs.list", "runs.get"]. */
function procedurePaths(url: URL): string[] {
  const tail = decodeURIComponent(url.pathname.replace(/^.*\/api\/trpc\/?/, ""));
  return tail ? tail.split(",") : [];
}

/** A 413 in tRPC's own error shape, so the client shows the message like any other error. */
function payloadTooLarge(url: URL, paths: string[], limit: number): Response {
  const message = `the request body is larger than ${formatBytes(limit)}, the limit for ${paths.join(", ") || "this request"}`;
  const shape = (path: string) => ({
    error: superjson.serialize({ message, code: -32013, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path, fieldErrors: null } }),
  });
  const body = url.searchParams.get("batch") === "1" ? paths.map(shape) : shape(paths[0] ?? "");
  return new Response(JSON.stringify(body), { status: 413, headers: { "content-type": "application/json", connection: "close" } });
}

async function handler(req: Request) {
  const url = new URL(req.url);
  let request = req;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const paths = procedurePaths(url);
    const limit = trpcBodyLimit(paths);
    try {
      request = withBody(req, await readBodyWithin(req, limit));
    } catch (err) {
      if (err instanceof BodyTooLargeError) return payloadTooLarge(url, paths, limit);
      throw err;
    }
  }
  // Shared results are stringified once and spliced into each body (server/lib/spliced-json.ts).
  return withSplicing(() =>
    fetchRequestHandler({
      endpoint: "/api/trpc",
      req: request,
      router: appRouter,
      // Queries may come as POST (inputs in the body); mutations still only as POST.
      allowMethodOverride: true,
      maxBatchSize: MAX_BATCH_SIZE,
      createContext: () => createContext({ headers: request.headers }),
      onError({ error, path }) {
        // Procedure errors are logged (with their reference) where they are made safe; this catches the rest.
        if (error.code === "INTERNAL_SERVER_ERROR" && !error.message.startsWith("internal error (ref")) console.error(`tRPC ${path ?? "?"}:`, error.cause ?? error);
      },
    }),
  );
}

export { handler as GET, handler as POST };
