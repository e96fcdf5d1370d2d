/**
 * A real HTTP server in front of a Next.js route handler for integration tests: the request goes through
 * the same client-address step as scripts/web.ts (applyClientAddress), then to the handler as a fetch
 * Request, and the handler's Response is written back.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { applyClientAddress, CLIENT_ADDRESS_HEADER, type Cidr } from "../lib/client-address";

// What scripts/web.ts declares to the app: the client-address header is set by this server.
(globalThis as { __envaceClientAddressHeader?: string }).__envaceClientAddressHeader = CLIENT_ADDRESS_HEADER;

export interface Bridge {
  url: string;
  close(): Promise<void>;
}

export async function serveRoute(handler: (req: Request) => Promise<Response>, trusted: Cidr[] = []): Promise<Bridge> {
  const server = http.createServer(async (req, res) => {
    try {
      applyClientAddress(req, trusted);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
        // @ts-expect-error Node's fetch needs this for a streamed body
        duplex: "half",
      });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      res.writeHead(500);
      res.end(String(err));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
