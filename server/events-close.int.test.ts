/**
 * A script that used the change feed in-process exits once it closes the feed (closeChangeFeed); an open feed
 * holds the process alive (its LISTEN connection, then its reconnect loop once the database stops) — the
 * reason bench:ui printed its result and never exited.
 */
import { once } from "node:events";
import { describe, expect, inject, it } from "vitest";
import { eventually } from "../test/helpers";
import { spawnTsx } from "../test/processes";

const databaseUrl = inject("databaseUrl");

describe("closing the process's change feed", () => {
  it("lets a script that opened it exit; left open, it keeps the script running", async () => {
    const closed = spawnTsx("test/fixtures/change-feed-script.ts", { DATABASE_URL: databaseUrl, CLOSE_FEED: "1" });
    const [code] = (await Promise.race([once(closed.child, "exit"), new Promise((_, reject) => setTimeout(() => reject(new Error(`still running:\n${closed.output()}`)), 60_000))])) as [number];
    expect(closed.output()).toContain("connected");
    expect(code).toBe(0);

    const open = spawnTsx("test/fixtures/change-feed-script.ts", { DATABASE_URL: databaseUrl });
    try {
      await eventually(async () => (open.output().includes("connected") ? true : null), 60_000, "the script to connect");
      await new Promise((r) => setTimeout(r, 3_000));
      expect(open.child.exitCode).toBeNull();
    } finally {
      await open.kill("SIGKILL");
    }
  }, 150_000);
});
