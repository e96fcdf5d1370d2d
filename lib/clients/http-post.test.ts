import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpConnectionError, HttpPool } from "./http-post";

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))));
});

async function serve(host: string, handler: http.RequestListener): Promise<number> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  return (server.address() as AddressInfo).port;
}

describe("HttpPool", () => {
  it("posts under the base path, over IPv6 literals too, and returns any status with its headers", async () => {
    const seen: string[] = [];
    const handler: http.RequestListener = (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
      res.writeHead(429, { "retry-after": "3" });
      res.end('{"error":{"message":"busy"}}');
    };
    const v4 = await serve("127.0.0.1", handler);
    const r = await new HttpPool(new URL(`http://127.0.0.1:${v4}/v1`), 4).post("chat/completions", "{}", {}).reply;
    expect(r).toMatchObject({ status: 429, body: '{"error":{"message":"busy"}}' });
    expect(r.headers.get("Retry-After")).toBe("3");
    const v6 = await serve("::1", handler).catch(() => null);
    if (v6 !== null) expect((await new HttpPool(new URL(`http://[::1]:${v6}/v1/`), 4).post("chat/completions", "{}", {}).reply).status).toBe(429);
    expect(seen[0]).toBe("POST /v1/chat/completions application/json");
  });

  it("rejects with a connection error when nothing answers, and with the caller's reason when aborted", async () => {
    const port = await serve("127.0.0.1", () => {}); // never answers
    const pool = new HttpPool(new URL(`http://127.0.0.1:${port}/v1`), 1);
    const call = pool.post("x", "{}", {});
    const reason = new Error("time is up");
    setTimeout(() => call.abort(reason), 50);
    await expect(call.reply).rejects.toBe(reason);
    servers.splice(0).forEach((s) => (s.closeAllConnections(), s.close()));
    await expect(pool.post("x", "{}", {}).reply).rejects.toBeInstanceOf(HttpConnectionError);
  });
});
