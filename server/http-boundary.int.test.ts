/**
 * The HTTP boundary of the API (the real route handlers): bodies over their route's limit get 413 before
 * they are read, text the database cannot store gets 400 naming the field, and no error carries database
 * or driver text.
 */
import { beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { prisma, resetDatabase, signUp, type TestUser } from "../test/helpers";
import { registerCheckedNode } from "../test/fixtures/doctor-report";
import { cm2Jsonl } from "../test/fixtures/cm2";
import { GET, POST } from "../app/api/trpc/[trpc]/route";
import { POST as authPOST } from "../app/api/auth/[...all]/route";
import { handleRestRequest } from "./openapi";
import { publicProcedure, router } from "./trpc/init";
import { createContext } from "./trpc/context";
import { quickstartPreset } from "../contracts/run-config";

const DRIVER_TEXT = /prisma|postgres|invalid byte sequence|22021|22P05|DriverAdapter|unsupported Unicode|\bat \//i;

/** A body that counts how much of it was ever read. */
function countingBody(totalBytes: number, chunkBytes = 64 * 1024) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= totalBytes) return controller.close();
      const n = Math.min(chunkBytes, totalBytes - pulled);
      pulled += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
  return { stream, pulled: () => pulled };
}

function trpcRequest(path: string, init: { headers: Headers; body?: BodyInit | ReadableStream; contentLength?: number }): Request {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  if (init.contentLength !== undefined) headers.set("content-length", String(init.contentLength));
  return new Request(`http://localhost/api/trpc/${path}`, { method: "POST", headers, body: init.body as BodyInit, duplex: "half" } as RequestInit);
}

async function call(path: string, input: unknown, headers: Headers) {
  const res = await POST(trpcRequest(path, { headers, body: JSON.stringify(superjson.serialize(input)) }));
  const text = await res.text();
  const body = JSON.parse(text) as { error?: { json: { message: string; data: { code: string; fieldErrors: { path: string; message: string }[] | null } } } };
  return { status: res.status, text, error: body.error?.json };
}

async function query(path: string, input: unknown, headers: Headers) {
  const url = `http://localhost/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`;
  const res = await GET(new Request(url, { headers }));
  const text = await res.text();
  return { status: res.status, text, error: (JSON.parse(text) as { error?: { json: { message: string } } }).error?.json };
}

describe("HTTP boundary", () => {
  let member: TestUser;
  beforeAll(async () => {
    await resetDatabase();
    await signUp(); // admin
    member = await signUp("member");
    await registerCheckedNode(prisma); // the embedded node the configs name
  });

  describe("body limits (413 before the body is read)", () => {
    it("a declared 100 MB body is refused from its Content-Length, reading nothing", async () => {
      const body = countingBody(100 * 1024 * 1024);
      const res = await POST(trpcRequest("runs.create", { headers: member.headers, body: body.stream, contentLength: 100 * 1024 * 1024 }));
      expect(res.status).toBe(413);
      expect(body.pulled()).toBeLessThanOrEqual(64 * 1024);
      const err = (await res.json()) as { error: { json: { message: string; data: { code: string } } } };
      expect(err.error.json.data.code).toBe("PAYLOAD_TOO_LARGE");
      expect(err.error.json.message).toBe("the request body is larger than 1 MB, the limit for runs.create");
    });

    it("a chunked body without a length is cut off as soon as it passes the limit", async () => {
      const body = countingBody(100 * 1024 * 1024);
      const res = await POST(trpcRequest("runs.create", { headers: member.headers, body: body.stream }));
      expect(res.status).toBe(413);
      expect(body.pulled()).toBeLessThan(1024 * 1024 + 2 * 64 * 1024);
    });

    it("a batch answers 413 for each call, in tRPC's shape", async () => {
      const res = await POST(new Request("http://localhost/api/trpc/runs.create,reports.create?batch=1", { method: "POST", headers: member.headers, body: "x".repeat(2 * 1024 * 1024) }));
      expect(res.status).toBe(413);
      const body = (await res.json()) as { error: { json: { data: { path: string } } } }[];
      expect(body.map((b) => b.error.json.data.path)).toEqual(["runs.create", "reports.create"]);
    });

    it("the dataset upload keeps its 20 MB: a 22 MB file reaches the import (which names its own limit), a 45 MB body is 413", async () => {
      const over = await call("datasets.import", { name: "big", text: "x".repeat(22 * 1024 * 1024) }, member.headers);
      expect(over.status).toBe(400);
      expect(over.error?.message).toMatch(/20 MB/);
      const huge = await POST(trpcRequest("datasets.import", { headers: member.headers, body: countingBody(45 * 1024 * 1024).stream }));
      expect(huge.status).toBe(413);
      const ok = await call("datasets.import", { name: "small", text: cm2Jsonl(2) }, member.headers);
      expect(ok.status).toBe(200);
    });

    it("REST reads no more than its route allows, with or without a token (also under a bare next start)", async () => {
      const declared = countingBody(100 * 1024 * 1024);
      const headers = new Headers({ "content-type": "application/json", "content-length": String(100 * 1024 * 1024) });
      const res = await handleRestRequest(new Request("http://localhost/api/v1/runs", { method: "POST", headers, body: declared.stream, duplex: "half" } as RequestInit));
      expect(res.status).toBe(413);
      expect(declared.pulled()).toBeLessThanOrEqual(64 * 1024);
      expect(await res.json()).toEqual({ code: "PAYLOAD_TOO_LARGE", message: "the request body is larger than 1 MB, the limit for POST /api/v1/runs", fieldErrors: [] });
      // The dataset import's 41 MB are for members: without a login a streamed body stops at 1 MB.
      const anonymous = countingBody(45 * 1024 * 1024);
      const refused = await handleRestRequest(new Request("http://localhost/api/v1/datasets", { method: "POST", headers: { "content-type": "application/json" }, body: anonymous.stream, duplex: "half" } as RequestInit));
      expect(refused.status).toBe(413);
      expect(anonymous.pulled()).toBeLessThanOrEqual(1024 * 1024 + 3 * 64 * 1024);
      expect(((await refused.json()) as { message: string }).message).toBe("the request body is larger than 1 MB, the limit for POST /api/v1/datasets without a login");
      const asMember = countingBody(45 * 1024 * 1024);
      const big = await handleRestRequest(new Request("http://localhost/api/v1/datasets", { method: "POST", headers: member.headers, body: asMember.stream, duplex: "half" } as RequestInit));
      expect(big.status).toBe(413);
      expect(asMember.pulled()).toBeGreaterThan(40 * 1024 * 1024);
      expect(((await big.json()) as { message: string }).message).toBe("the request body is larger than 41 MB, the limit for POST /api/v1/datasets");
    });

    it("sign-in and sign-up bodies are limited to 64 KB", async () => {
      const res = await authPOST(new Request("http://localhost/api/auth/sign-up/email", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "a@b.test", password: "p".repeat(70_000), name: "x" }) }));
      expect(res.status).toBe(413);
    });
  });

  describe("text the database cannot store (400 naming the field, no database text)", () => {
    const cases: { what: string; path: string; input: () => unknown; field: string }[] = [
      { what: "run name", path: "runs.create", input: () => ({ name: "nul\u0000name", config: quickstartPreset }), field: "name" },
      { what: "tags", path: "runs.create", input: () => ({ name: "ok", tags: ["fine", "bad\uD800"], config: quickstartPreset }), field: "tags.1" },
      { what: "config", path: "runs.create", input: () => ({ name: "ok", config: { ...quickstartPreset, notes: { "k\u0000": 1 } } }), field: "config.notes.k\\u0000" },
      { what: "report body", path: "reports.create", input: () => ({ title: "t", body: "lone \uDC00 low", runIds: ["00000000-0000-4000-8000-000000000000"] }), field: "body" },
    ];
    for (const c of cases) {
      it(`${c.what}`, async () => {
        const before = await prisma.run.count();
        const res = await call(c.path, c.input(), member.headers);
        expect(res.status).toBe(400);
        expect(res.error?.message.startsWith(`${c.field}: `), res.error?.message).toBe(true);
        expect(res.error?.data.fieldErrors?.[0]?.path).toBe(c.field);
        expect(res.text).not.toMatch(DRIVER_TEXT);
        expect(await prisma.run.count()).toBe(before);
      });
    }

    it("filters (query input)", async () => {
      const res = await query("runs.list", { search: "x\u0000" }, member.headers);
      expect(res.status).toBe(400);
      expect(res.error?.message).toMatch(/^search: contains a NUL character/);
      expect(res.text).not.toMatch(DRIVER_TEXT);
      const traj = await query("trajectories.list", { runId: "00000000-0000-4000-8000-000000000000", terminationReason: "\uD83D" }, member.headers);
      expect(traj.status).toBe(400);
      expect(traj.text).not.toMatch(DRIVER_TEXT);
    });

    it("dataset rows (JSON escapes inside the file)", async () => {
      const text = cm2Jsonl(2).replace(/"content":"([^"]*)"/, '"content":"$1\\u0000"');
      const res = await call("datasets.import", { name: "nul-rows", text }, member.headers);
      expect(res.status).toBe(400);
      expect(res.error?.message).toMatch(/line 1: .*contains a NUL character/);
      expect(res.text).not.toMatch(DRIVER_TEXT);
      expect(await prisma.dataset.count({ where: { name: "nul-rows" } })).toBe(0);
    });

    it("sign-up fields", async () => {
      const res = await authPOST(new Request("http://localhost/api/auth/sign-up/email", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "nul@example.test", password: "password-123", name: "Nul\u0000" }) }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/^name: contains a NUL character/);
      expect(await prisma.user.count({ where: { email: "nul@example.test" } })).toBe(0);
    });
  });

  describe("unexpected errors", () => {
    const failing = router({
      driver: publicProcedure.query(() => {
        throw Object.assign(new Error('Invalid `prisma.run.create()` invocation: invalid byte sequence for encoding "UTF8": 0x00'), { code: "22021" });
      }),
      unreachable: publicProcedure.query(() => {
        throw Object.assign(new Error("Can't reach database server at 127.0.0.1:5432"), { code: "P1001" });
      }),
    });
    const handle = (path: string) =>
      fetchRequestHandler({ endpoint: "/api/trpc", req: new Request(`http://localhost/api/trpc/${path}`), router: failing, createContext: () => createContext({ headers: new Headers() }) });

    it("are answered with a reference, never their own text", async () => {
      const res = await handle("driver");
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).toMatch(/internal error \(ref [0-9a-f]{8}\); the details are in the server log/);
      expect(text).not.toMatch(DRIVER_TEXT);
    });

    it("an unreachable database is 503 'try again', not a 500 with the driver's words", async () => {
      const res = await handle("unreachable");
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(text).toContain("the database is unavailable right now; try again in a moment");
      expect(text).not.toMatch(/127\.0\.0\.1|reach database server/);
    });
  });
});
