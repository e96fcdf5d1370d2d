/**
 * A node's maxConcurrency across worker processes: two real processes send their judge calls to one node
 * (a stand-in OpenAI server that records how many requests it holds at once); together they never exceed
 * the limit, the Nodes page shows the live count, and nothing stays leased afterwards.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { spawnTsx } from "../../test/processes";
import { NodeSlotLeases } from "./node-slots";

const databaseUrl = inject("databaseUrl");
const LIMIT = 3;
const HOLD_MS = 300;

describe("node limits across workers", () => {
  let server: http.Server;
  let url: string;
  let inFlight = 0;
  let maxInFlight = 0;
  let served = 0;
  let member: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        setTimeout(() => {
          inFlight--;
          served++;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ id: "c", object: "chat.completion", created: 0, model: "judge-model", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
        }, HOLD_MS);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await prisma.node.create({ data: { name: "judge-shared", kind: "openai", baseUrl: url, models: ["judge-model"], settings: { openai: { maxConcurrency: LIMIT } } } });
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it("two worker processes together keep to the node's maxConcurrency, shown on the Nodes page as in flight / limit", async () => {
    const env = { DATABASE_URL: databaseUrl, NODE_NAME: "judge-shared", CALLS: "8" };
    const workers = [spawnTsx("test/fixtures/node-limits/worker-calls.ts", env), spawnTsx("test/fixtures/node-limits/worker-calls.ts", env)];
    const exits = workers.map((w) => new Promise<number | null>((resolve) => w.child.on("exit", (c) => resolve(c))));
    try {
      // While they run, the Nodes page counts the live leases.
      const caller = await callerFor(member.headers);
      let seen = 0;
      const deadline = Date.now() + 60_000;
      while (served < 16 && Date.now() < deadline) {
        const node = (await caller.nodes.list()).find((n) => n.name === "judge-shared")!;
        expect(node.concurrencyLimit).toBe(LIMIT);
        expect(node.inFlight).toBeLessThanOrEqual(LIMIT);
        seen = Math.max(seen, node.inFlight);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await Promise.all(exits)).toEqual([0, 0]);
      expect(workers.map((w) => /answered (\d+)/.exec(w.output())?.[1])).toEqual(["8", "8"]);
      expect(served).toBe(16);
      expect(maxInFlight).toBe(LIMIT);
      expect(seen).toBe(LIMIT);
      expect(await prisma.nodeSlotLease.count()).toBe(0);
      expect((await caller.nodes.list()).find((n) => n.name === "judge-shared")!.inFlight).toBe(0);
    } finally {
      await Promise.all(workers.map((w) => w.kill("SIGKILL")));
    }
  });

  it("a lease whose holder died lapses at its expiry; a live holder's lease is renewed past it", async () => {
    const dead = new NodeSlotLeases(prisma, { holder: "dead", ttlMs: 1_000, renewMs: 60_000 });
    const live = new NodeSlotLeases(prisma, { holder: "live", ttlMs: 1_000, renewMs: 200, pollMs: 50 });
    await dead.acquire("n1", 2); // never released: its holder "died"
    const releaseLive = await live.acquire("n1", 2);
    // Full: a third waits until the dead holder's lease lapses (about 1 s), while the live one is renewed.
    const started = Date.now();
    const releaseThird = await live.acquire("n1", 2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect((await prisma.nodeSlotLease.findMany({ where: { nodeName: "n1" }, select: { holder: true } })).map((l) => l.holder)).toEqual(["live", "live"]);
    releaseLive();
    releaseThird();
    await new Promise((r) => setTimeout(r, 100));
    expect(await prisma.nodeSlotLease.count({ where: { nodeName: "n1" } })).toBe(0);
  });

  it("a waiter that gives up leaves the queue", async () => {
    const leases = new NodeSlotLeases(prisma, { holder: "q", pollMs: 50 });
    const release = await leases.acquire("n2", 1);
    const controller = new AbortController();
    const waiting = leases.acquire("n2", 1, controller.signal);
    setTimeout(() => controller.abort(new Error("run cancelled")), 200);
    await expect(waiting).rejects.toThrow("run cancelled");
    release();
    const again = await leases.acquire("n2", 1);
    again();
  });
});
