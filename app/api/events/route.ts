import { getChangeFeed, isShuttingDown, onShutdown, type ChangeEvent } from "@/server/events";
import { isDatabaseUnavailable } from "@/server/lib/db-errors";
import { resolveUser } from "@/server/trpc/context";

export const dynamic = "force-dynamic";

const RECONNECT_MS = 3_000;
const PING_MS = 15_000;
const headers = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" };

/**
 * A stream that only tells the browser when to come back. A non-200 answer would make EventSource give up
 * for good, so while the database is down (the user cannot be checked) or the server is stopping, the
 * browser is asked to reconnect later instead.
 */
function comeBackLater(ms: number): Response {
  return new Response(`retry: ${ms}\n\n`, { status: 200, headers });
}

/** Server-sent change signals; the browser invalidates the matching React Query caches. */
export async function GET(req: Request) {
  if (isShuttingDown()) return comeBackLater(1_000);
  let user;
  try {
    user = await resolveUser(req.headers, { fresh: true });
  } catch (err) {
    if (isDatabaseUnavailable(err)) return comeBackLater(5_000);
    throw err;
  }
  if (!user) return new Response("sign in first", { status: 401 });
  const feed = getChangeFeed();
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const send = (e: ChangeEvent) => write(`data: ${JSON.stringify(e)}\n\n`);
      // Signals sent while the database was unreachable are lost: tell the page to refetch what it shows.
      const resync = () => write(`event: resync\ndata: {}\n\n`);
      const ping = setInterval(() => write(`: ping\n\n`), PING_MS);
      const close = () => {
        if (!open) return;
        open = false;
        cleanup();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      feed.on("change", send);
      feed.on("resync", resync);
      const unhook = onShutdown(() => {
        write(`retry: 1000\n\n`);
        close();
      });
      cleanup = () => {
        clearInterval(ping);
        feed.off("change", send);
        feed.off("resync", resync);
        unhook();
      };
      write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
      req.signal.addEventListener("abort", close);
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, { headers });
}
