import { getChangeEvents, type ChangeEvent } from "@/server/events";
import { resolveUser } from "@/server/trpc/context";

export const dynamic = "force-dynamic";

/** Server-sent change signals; the browser invalidates the matching React Query caches. */
export async function GET(req: Request) {
  const user = await resolveUser(req.headers);
  if (!user) return new Response("sign in first", { status: 401 });
  const emitter = await getChangeEvents();
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream({
    start(controller) {
      const send = (e: ChangeEvent) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(e)}\n\n`));
      const ping = setInterval(() => controller.enqueue(encoder.encode(`: ping\n\n`)), 15_000);
      emitter.on("change", send);
      controller.enqueue(encoder.encode(`: connected\n\n`));
      cleanup = () => {
        clearInterval(ping);
        emitter.off("change", send);
      };
      req.signal.addEventListener("abort", () => {
        cleanup();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" },
  });
}
