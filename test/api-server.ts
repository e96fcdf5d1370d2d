/**
 * A real HTTP server for integration tests of API clients (the `envace` CLI, the browser's tRPC link):
 * the app's own route handlers — REST (/api/v1), tRPC (/api/trpc), the OpenAPI document and the live
 * event stream (/api/events) — mounted on node:http (its default 16 KB header limit, as `next start`)
 * on a free port, against the test database, behind the same front as scripts/web.ts (the body limits of
 * scripts/lib/web-front.ts). The Next.js routes re-export these same functions, so what a client sees
 * here is what it sees from the web process, without a production build.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { GET as authGet, POST as authPost } from "../app/api/auth/[...all]/route";
import { GET as events } from "../app/api/events/route";
import { GET as openapi } from "../app/api/openapi.json/route";
import { GET as trpcGet, POST as trpcPost } from "../app/api/trpc/[trpc]/route";
import { handleRestRequest } from "../server/openapi";
import { checkContinue, withBodyLimits } from "../scripts/lib/web-front";
import { downloadAdapter } from "../server/features/runs/adapter-download";

type Handler = (req: Request) => Response | Promise<Response>;

function route(pathname: string): Handler | null {
  if (pathname.startsWith("/api/v1/")) return handleRestRequest;
  if (pathname === "/api/openapi.json") return openapi;
  if (pathname === "/api/events") return events;
  const adapter = /^\/api\/checkpoints\/([^/]+)\/adapter$/.exec(pathname);
  if (adapter) return (req) => downloadAdapter(req, adapter[1]!);
  if (pathname.startsWith("/api/trpc/")) return (req) => (req.method === "POST" ? trpcPost(req) : trpcGet(req));
  if (pathname.startsWith("/api/auth/")) return (req) => (req.method === "POST" ? authPost(req) : authGet(req));
  return null;
}

export interface ApiServer {
  url: string;
  close(): Promise<void>;
}

export async function startApiServer(): Promise<ApiServer> {
  const sockets = new Set<import("node:net").Socket>();
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const handler = route(url.pathname);
    if (!handler) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ code: "NOT_FOUND", message: "no such route" }));
      return;
    }
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(url, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
      signal: abort.signal,
      // @ts-expect-error Node's fetch needs this for a streamed request body.
      duplex: hasBody ? "half" : undefined,
    });
    try {
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return void res.end();
      const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
      body.on("error", () => res.destroy());
      body.pipe(res);
    } catch (err) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ code: "INTERNAL_SERVER_ERROR", message: String(err) }));
    }
  };
  const server = http.createServer(withBodyLimits(serve));
  server.on("checkContinue", checkContinue(serve));
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Event streams stay open until their clients leave; end them with the server.
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
