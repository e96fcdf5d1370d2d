import { describe, expect, it } from "vitest";
import type { PrismaClient } from "@prisma/client";
import { isDatabaseUnavailable } from "../../lib/db-errors";
import { OutageNotice, RunJournal, shortMessage, whileDatabaseDown } from "./durable";

const down = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

describe("database unavailable", () => {
  it("recognises every layer's way of saying so, and nothing else", () => {
    expect(isDatabaseUnavailable(down())).toBe(true);
    expect(isDatabaseUnavailable({ code: "P1001", message: "Can't reach database server" })).toBe(true);
    expect(isDatabaseUnavailable({ name: "DriverAdapterError", cause: { kind: "ConnectionClosed" } })).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable({ code: "57P01", message: "terminating connection due to administrator command" })).toBe(true);
    expect(isDatabaseUnavailable({ code: "57P03", message: "the database system is starting up" })).toBe(true);
    expect(isDatabaseUnavailable({ meta: { driverAdapterError: { cause: { originalCode: "08006" } } } })).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([down()]))).toBe(true);
    expect(isDatabaseUnavailable({ code: "P2002", message: "Unique constraint failed" })).toBe(false);
    expect(isDatabaseUnavailable(new Error("this worker no longer holds run r1"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});

describe("whileDatabaseDown", () => {
  it("waits out an outage and returns the result, saying once that it is down and once that it is back", async () => {
    let calls = 0;
    const events: string[] = [];
    const value = await whileDatabaseDown(
      async () => {
        if (++calls < 4) throw down();
        return 42;
      },
      { firstDelayMs: 1, maxDelayMs: 2, onDown: () => events.push("down"), onUp: () => events.push("up") },
    );
    expect(value).toBe(42);
    expect(calls).toBe(4);
    expect(events).toEqual(["down", "up"]);
  });

  it("throws other errors at once, and stops waiting when its signal aborts", async () => {
    let calls = 0;
    await expect(whileDatabaseDown(async () => (calls++, Promise.reject(new Error("unique constraint"))), { firstDelayMs: 1 })).rejects.toThrow("unique constraint");
    expect(calls).toBe(1);
    const stop = new AbortController();
    const waiting = whileDatabaseDown(async () => Promise.reject(down()), { firstDelayMs: 5, signal: stop.signal });
    setTimeout(() => stop.abort(), 20);
    await expect(waiting).rejects.toThrow("ECONNREFUSED");
  });
});

describe("OutageNotice", () => {
  it("reports an outage once and its end once", () => {
    const lines: string[] = [];
    const notice = new OutageNotice("heartbeat", (m) => lines.push(m));
    expect(notice.failed(down())).toBe(true);
    expect(notice.failed(down())).toBe(true);
    expect(notice.failed(new Error("syntax error"))).toBe(false);
    notice.ok();
    notice.ok();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^heartbeat: database unavailable/);
    expect(lines[1]).toMatch(/^heartbeat: database back after \d+\.\d s/);
  });
});

describe("shortMessage", () => {
  it("keeps the cause of a multi-line Prisma message", () => {
    const err = new Error("\nInvalid `prisma.$queryRaw()` invocation:\n\n\nRaw query failed. Code: `N/A`. Message: `Can't reach database server at 127.0.0.1:45411`");
    expect(shortMessage(err)).toBe("Can't reach database server at 127.0.0.1:45411");
    expect(shortMessage(new Error("connect ECONNREFUSED"))).toBe("connect ECONNREFUSED");
  });
});

describe("RunJournal", () => {
  function fakePrisma(isDown: () => boolean) {
    const written: Array<{ message: string; ts: Date }> = [];
    const details: Array<string | null> = [];
    const prisma = {
      runLog: {
        create: async ({ data }: { data: { message: string; ts: Date } }) => {
          if (isDown()) throw down();
          written.push(data);
        },
      },
      $executeRaw: async (_strings: TemplateStringsArray, detail: string | null) => {
        if (isDown()) throw down();
        details.push(detail);
        return 1;
      },
    } as unknown as PrismaClient;
    return { prisma, written, details };
  }

  it("never blocks the run, and writes every line in order with its own time once the database is back", async () => {
    let dbDown = true;
    const db = fakePrisma(() => dbDown);
    const journal = new RunJournal(db.prisma, "r1", "w1", () => {});
    const before = Date.now();
    await journal.log("info", "step 1 committed");
    await journal.detail("waiting for node \"n\"");
    await journal.log("warn", "step 2 interrupted");
    expect(Date.now() - before).toBeLessThan(50); // queued, not written
    expect(db.written).toEqual([]);
    await new Promise((r) => setTimeout(r, 30));
    dbDown = false;
    await journal.flush();
    expect(db.written.map((w) => w.message)).toEqual(["step 1 committed", "step 2 interrupted"]);
    expect(db.written[0]!.ts.getTime()).toBeLessThan(before + 50);
    expect(db.details).toEqual(["waiting for node \"n\""]);
    await journal.log("info", "after");
    await journal.flush();
    expect(db.written.map((w) => w.message).at(-1)).toBe("after");
  });
});
