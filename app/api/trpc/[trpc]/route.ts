import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/root";
import { readRequestWithinLimit } from "@/server/lib/body-limit";
import { withSplicing } from "@/server/lib/spliced-json";
import { createContext } from "@/server/trpc/context";

export const dynamic = "force-dynamic";

/**
 * Calls per batched request. The browser batches by POST (app/_lib/trpc-links.ts, at most 50 calls),
 * so a page of many chart series never meets the URL limit of a GET; the body limit still applies.
 */
const MAX_BATCH_SIZE = 100;

async function handler(req: Request) {
  // Within the body limit of the procedures it names (413 in tRPC's shape, lib/body-limits.ts).
  const request = await readRequestWithinLimit(req);
  if (request instanceof Response) return request;
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
