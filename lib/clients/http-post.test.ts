import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HttpConnectionError, HttpPool } from "./http-post";

const servers: (http.Server | net.Server)[] = [];
const pools: HttpPool[] = [];
afterEach(async () => {
  pools.splice(0).forEach((p) => p.close());
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          if (s instanceof http.Server) s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

function pool(port: number, max = 4, path = "/v1"): HttpPool {
  const p = new HttpPool(new URL(`http://127.0.0.1:${port}${path}`), max);
  pools.push(p);
  return p;
}

async function serve(host: string, handler: http.RequestListener): Promise<{ port: number; connections: () => number }> {
  const server = http.createServer(handler);
  let connections = 0;
  server.on("connection", () => connections++);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

/**
 * A raw TCP server: `answer(request, socket, index)` is called once per complete request (head + body
 * by Content-Length) with the request's index on its connection, and writes whatever bytes it likes.
 */
async function rawServe(answer: (req: { head: string; body: string }, socket: net.Socket, index: number) => void): Promise<{ port: number; connections: () => number; requests: () => number }> {
  let connections = 0;
  let requests = 0;
  const server = net.createServer((socket) => {
    connections++;
    let buf = Buffer.alloc(0);
    let index = 0;
    socket.on("error", () => {});
    socket.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buf.subarray(0, end).toString("latin1");
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const body = buf.subarray(end + 4, end + 4 + length).toString("utf8");
        buf = buf.subarray(end + 4 + length);
        requests++;
        answer({ head, body }, socket, index++);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, connections: () => connections, requests: () => requests };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `parts` one after the other with a pause between, so each arrives as its own packet. */
async function writeParts(socket: net.Socket, parts: (string | Buffer)[], pauseMs = 2): Promise<void> {
  socket.setNoDelay(true);
  for (const [k, p] of parts.entries()) {
    if (k > 0) await sleep(pauseMs);
    if (socket.destroyed) return;
    socket.write(p);
  }
}

describe("HttpPool against node:http", () => {
  it("posts under the base path, over IPv6 literals too, and returns any status with its headers", async () => {
    const seen: string[] = [];
    const handler: http.RequestListener = (req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push(`${req.method} ${req.url} ${req.headers["content-type"]} ${req.headers.host} ${req.headers.authorization} ${body}`);
        res.writeHead(429, { "retry-after": "3" });
        res.end('{"error":{"message":"busy"}}');
      });
    };
    const v4 = await serve("127.0.0.1", handler);
    const r = await pool(v4.port).post("chat/completions", '{"q":"é"}', { authorization: "Bearer k" }).reply;
    expect(r).toMatchObject({ status: 429, body: '{"error":{"message":"busy"}}' });
    expect(r.headers.get("Retry-After")).toBe("3");
    expect(r.headers.get("x-missing")).toBeNull();
    expect(seen[0]).toBe(`POST /v1/chat/completions application/json 127.0.0.1:${v4.port} Bearer k {"q":"é"}`);
    const v6 = await serve("::1", handler).catch(() => null);
    if (v6 !== null) {
      const p6 = new HttpPool(new URL(`http://[::1]:${v6.port}/v1/`), 4);
      pools.push(p6);
      expect((await p6.post("chat/completions", "{}", {}).reply).status).toBe(429);
    }
  });

  it("returns 413, 429 and 500 bodies as they are, chunked or not, and reuses one socket for sequential calls", async () => {
    const node = await serve("127.0.0.1", (req, res) => {
      req.resume();
      req.on("end", () => {
        const status = Number(req.url!.split("/").pop());
        if (status === 500) {
          // No Content-Length: node:http sends it chunked, in three writes.
          res.writeHead(500, { "content-type": "text/plain" });
          res.write("internal ");
          setTimeout(() => res.end("error: ünïcode"), 5);
          return;
        }
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `status ${status}` } }));
      });
    });
    const p = pool(node.port);
    for (const status of [413, 429, 500, 200, 413]) {
      const r = await p.post(`s/${status}`, "{}", {}).reply;
      expect(r.status).toBe(status);
      expect(r.body).toBe(status === 500 ? "internal error: ünïcode" : JSON.stringify({ error: { message: `status ${status}` } }));
    }
    expect(node.connections()).toBe(1);
    expect(p.sockets).toBe(1);
  });

  it("carries a large UTF-8 body both ways (multi-byte characters split across packets)", async () => {
    const big = "€ab".repeat(300_000);
    const node = await serve("127.0.0.1", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => res.end(Buffer.concat(chunks).toString("utf8") + "!"));
    });
    const r = await pool(node.port).post("x", big, {}).reply;
    expect(r.body.length).toBe(big.length + 1);
    expect(r.body === `${big}!`).toBe(true);
  });

  it("opens at most maxSockets sockets; calls beyond wait and are all answered", async () => {
    const node = await serve("127.0.0.1", (req, res) => {
      req.resume();
      req.on("end", () => setTimeout(() => res.end(req.url), 20));
    });
    const p = pool(node.port, 2);
    const replies = await Promise.all(Array.from({ length: 7 }, (_, i) => p.post(`n${i}`, "{}", {}).reply));
    expect(replies.map((r) => r.body)).toEqual(Array.from({ length: 7 }, (_, i) => `/v1/n${i}`));
    expect(node.connections()).toBe(2);
  });

  it("rejects with a connection error when nothing answers, and with the caller's reason when aborted (the socket destroyed)", async () => {
    let closed = 0;
    const node = await serve("127.0.0.1", (req) => req.socket.on("close", () => closed++)); // never answers
    const p = pool(node.port, 1);
    const call = p.post("x", "{}", {});
    const reason = new Error("time is up");
    setTimeout(() => call.abort(reason), 50);
    await expect(call.reply).rejects.toBe(reason);
    expect(p.sockets).toBe(0);
    await sleep(20);
    expect(closed).toBe(1);
    // A queued call (the one socket busy) is dropped from the queue by abort.
    const first = p.post("y", "{}", {});
    const queued = p.post("z", "{}", {});
    queued.abort(reason);
    await expect(queued.reply).rejects.toBe(reason);
    first.abort(reason);
    await expect(first.reply).rejects.toBe(reason);
    const dead = pool(node.port);
    servers.splice(0).forEach((s) => ((s as http.Server).closeAllConnections(), s.close()));
    await sleep(10);
    const e = await dead.post("x", "{}", {}).reply.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HttpConnectionError);
    expect((e as HttpConnectionError).code).toBe("ECONNREFUSED");
    expect((e as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("close() fails the calls in flight and refuses new ones", async () => {
    const node = await serve("127.0.0.1", () => {}); // never answers
    const p = pool(node.port, 1);
    const inFlight = p.post("a", "{}", {}).reply;
    const queued = p.post("b", "{}", {}).reply;
    await sleep(20);
    const settled = Promise.allSettled([inFlight, queued]);
    p.close();
    const [a, b] = await settled;
    expect(a.status === "rejected" && a.reason).toBeInstanceOf(HttpConnectionError);
    expect(b.status === "rejected" && String(b.reason)).toMatch(/pool is closed/);
    await expect(p.post("c", "{}", {}).reply).rejects.toThrow(/pool is closed/);
    expect(p.sockets).toBe(0);
  });

  it("does not reuse a socket idle longer than the server's Keep-Alive timeout allows", async () => {
    const node = await serve("127.0.0.1", (req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    for (const s of servers) (s as http.Server).keepAliveTimeout = 1000; // "Keep-Alive: timeout=1": reuse within 0 s only
    const p = pool(node.port);
    await p.post("a", "{}", {}).reply;
    await sleep(5);
    await p.post("b", "{}", {}).reply;
    expect(node.connections()).toBe(2);
  });
});

describe("HttpPool against a raw server's framing", () => {
  const chunked = (body: string) => ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n", `4;ext=1;q="a b"\r\n${body.slice(0, 4)}\r\n`, `${(Buffer.byteLength(body.slice(4))).toString(16).toUpperCase()} ; tail\r\n${body.slice(4)}\r\n`, "0\r\nX-Trailer: t\r\n\r\n"].join("");

  it("reads a chunked answer with extensions and trailers split into two packets at every byte boundary, all on one reused socket", async () => {
    const body = '{"choices":[{"message":{"content":"héllo"}}]}';
    const whole = Buffer.from(chunked(body), "utf8");
    const server = await rawServe((req, socket, index) => {
      void writeParts(socket, [whole.subarray(0, index), whole.subarray(index)].filter((b) => b.length > 0), 3);
    });
    const p = pool(server.port, 1);
    for (let i = 0; i < whole.length; i++) {
      const r = await p.post("x", `{"i":${i}}`, {}).reply;
      expect(r.status).toBe(200);
      expect(r.body).toBe(body);
      expect(r.headers.get("x-a")).toBe("1");
    }
    expect(server.connections()).toBe(1);
  });

  it("reads a Content-Length answer delivered one byte per packet, and after it a 100 Continue + 103 interim then the real answer", async () => {
    const body = "ünï";
    const bytes = Buffer.from(`HTTP/1.1 201 Created\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 7\r\nRetry-After: 8\r\n\r\n${body}`, "utf8");
    const server = await rawServe((req, socket, index) => {
      if (index === 0) void writeParts(socket, [...bytes].map((b) => Buffer.from([b])), 1);
      else socket.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok`);
    });
    const p = pool(server.port, 1);
    const r = await p.post("x", "{}", {}).reply;
    expect(r).toMatchObject({ status: 201, body });
    expect(r.headers.get("retry-after")).toBe("7, 8");
    const r2 = await p.post("x", "{}", {}).reply;
    expect(r2).toMatchObject({ status: 200, body: "ok" });
    expect(r2.headers.get("link")).toBeNull();
    expect(server.connections()).toBe(1);
  });

  it("reads a body that runs to the close, and retires a socket after Connection: close or HTTP/1.0", async () => {
    const server = await rawServe((req, socket, index) => {
      if (req.head.includes("/v1/eof")) return void socket.end("HTTP/1.1 200 OK\r\n\r\nto the end");
      if (req.head.includes("/v1/http10")) return void socket.write("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
      socket.write(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\n${index}`);
    });
    const p = pool(server.port, 1);
    expect((await p.post("eof", "{}", {}).reply).body).toBe("to the end");
    expect((await p.post("c", "{}", {}).reply).body).toBe("0");
    expect((await p.post("c", "{}", {}).reply).body).toBe("0");
    expect((await p.post("http10", "{}", {}).reply).body).toBe("ok");
    expect((await p.post("c", "{}", {}).reply).body).toBe("0");
    expect(server.connections()).toBe(5);
  });

  it("fails with a connection error when the server closes mid-body (Content-Length or chunked), and does not retry then", async () => {
    // Each connection's first request is answered whole (so the socket is a reused one at the second),
    // the second is cut mid-body: bytes came back, so it is not sent again.
    const server = await rawServe((req, socket, index) => {
      if (index === 0) socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      else if (req.head.includes("/v1/len")) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial":');
      else socket.end("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    });
    const p = pool(server.port, 1);
    for (const path of ["len", "chunk"]) {
      expect((await p.post(path, "{}", {}).reply).body).toBe("ok");
      const e = await p.post(path, "{}", {}).reply.catch((x: unknown) => x);
      expect(e).toBeInstanceOf(HttpConnectionError);
      expect((e as Error).message).toBe("the connection closed before the reply was complete");
    }
    expect(server.requests()).toBe(4);
    expect(server.connections()).toBe(2);
  });

  it("retries once on a fresh socket when a reused socket is closed with nothing sent back, never on a fresh one", async () => {
    // The server answers the first request of each connection and drops the connection on the second
    // without a byte: from the client's side, a keep-alive socket closed while idle.
    const server = await rawServe((req, socket, index) => {
      if (index === 0) socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${req.body.length}\r\n\r\n${req.body}`);
      else socket.destroy();
    });
    const p = pool(server.port, 1);
    expect((await p.post("x", '"a"', {}).reply).body).toBe('"a"');
    expect((await p.post("x", '"b"', {}).reply).body).toBe('"b"');
    expect(server.connections()).toBe(2);
    expect(server.requests()).toBe(3);

    // A server that drops every request unanswered: the fresh socket's failure is reported, not retried.
    const mute = await rawServe((_req, socket) => socket.destroy());
    const e = await pool(mute.port, 1).post("x", "{}", {}).reply.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HttpConnectionError);
    expect((e as Error).message).toMatch(/closed the connection without answering|ECONNRESET/);
    expect(mute.requests()).toBe(1);
  });

  it("reports unreadable framing as a malformed reply and drops the socket", async () => {
    const cases = ["HTTX/1.1 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY"];
    const server = await rawServe((req, socket) => socket.write(cases[Number(/\/v1\/(\d)/.exec(req.head)![1])]!));
    const p = pool(server.port, 1);
    for (let i = 0; i < cases.length; i++) {
      const e = await p.post(String(i), "{}", {}).reply.catch((x: unknown) => x);
      expect(e, cases[i]).toBeInstanceOf(HttpConnectionError);
      expect((e as HttpConnectionError).code).toBe("EPROTO");
      expect((e as Error).message).toMatch(/^malformed HTTP reply from 127\.0\.0\.1:\d+: /);
    }
    expect(server.connections()).toBe(cases.length);
  });

  it("refuses header values that would inject lines", () => {
    expect(() => pool(1).post("x", "{}", { authorization: "a\r\nx-evil: 1" })).toThrow(/invalid HTTP header/);
  });
});

describe("HttpPool over TLS", () => {
  let cert: { key: string; cert: string } | undefined;
  try {
    const dir = mkdtempSync(join(tmpdir(), "http-post-tls-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem")], { stdio: "ignore" });
    cert = { key: readFileSync(join(dir, "k.pem"), "utf8"), cert: readFileSync(join(dir, "c.pem"), "utf8") };
    rmSync(dir, { recursive: true });
  } catch {
    cert = undefined; // no openssl here: the https test is skipped
  }

  it.skipIf(!cert)("posts over https with the server's certificate checked (trusted through `ca`), reusing the connection", async () => {
    const server = https.createServer({ key: cert!.key, cert: cert!.cert }, (req, res) => {
      req.resume();
      req.on("end", () => res.end(`secure ${req.url}`));
    });
    let connections = 0;
    server.on("secureConnection", () => connections++);
    servers.push(server as unknown as http.Server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    for (const host of ["localhost", "127.0.0.1"]) {
      const p = new HttpPool(new URL(`https://${host}:${port}/v1`), 2, { tls: { ca: cert!.cert } });
      pools.push(p);
      expect((await p.post("a", "{}", {}).reply).body).toBe("secure /v1/a");
      expect((await p.post("b", "{}", {}).reply).body).toBe("secure /v1/b");
    }
    expect(connections).toBe(2);
    // Without the CA the self-signed certificate is refused.
    const untrusted = new HttpPool(new URL(`https://localhost:${port}/v1`), 1);
    pools.push(untrusted);
    await expect(untrusted.post("a", "{}", {}).reply).rejects.toBeInstanceOf(HttpConnectionError);
  });
});
