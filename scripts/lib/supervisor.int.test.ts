/** `npm start`'s supervision with real child processes: crash → restart with backoff; Ctrl-C → ordered stop. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { processRunning } from "./processes";
import { freePort, spawnTsx } from "../../test/processes";
import { restartDelayMs } from "./supervisor";

async function until<T>(what: string, check: () => T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const alive = processRunning;

describe("restart backoff", () => {
  it("doubles per consecutive crash up to the cap", () => {
    const policy = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => restartDelayMs(n, policy))).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });
});

describe("the supervisor (real child processes)", () => {
  it("restarts a killed worker with backoff and logs it while the web keeps answering; Ctrl-C stops web, worker, node, then the database", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "supervisor-"));
    const orderFile = path.join(dir, "order");
    fs.writeFileSync(orderFile, "");
    const webPort = await freePort();
    const host = spawnTsx("test/fixtures/supervisor/host.ts", { WEB_PORT: String(webPort), ORDER_FILE: orderFile });
    try {
      const pids = JSON.parse(await until("the services to start", () => /\[envace\] up (\{.*\})/.exec(host.output())?.[1], 60_000)) as Record<string, number>;

      // The web must answer throughout: poll it while the worker is killed twice and comes back twice.
      let answered = 0;
      const failures: string[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          try {
            const res = await fetch(`http://127.0.0.1:${webPort}/`, { signal: AbortSignal.timeout(2000) });
            if (res.ok) answered++;
            else failures.push(`HTTP ${res.status}`);
          } catch (err) {
            failures.push((err as Error).message);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      })();

      process.kill(pids.worker!, "SIGKILL");
      await until("the first restart", () => host.output().includes("[envace] worker is back (restart 1)"));
      expect(host.output()).toMatch(/\[envace\] worker was killed \(SIGKILL\) after [\d.]+ s; restarting in 0\.3 s/);
      const second = Number(await until("a new worker", () => [...host.output().matchAll(/worker started pid (\d+)/g)][1]?.[1]));
      expect(second).not.toBe(pids.worker);
      expect(alive(second)).toBe(true);

      // A second crash soon after waits twice as long.
      process.kill(second, "SIGKILL");
      await until("the second restart", () => host.output().includes("[envace] worker is back (restart 2)"));
      expect(host.output()).toMatch(/restarting in 0\.6 s/);
      const third = Number(await until("a third worker", () => [...host.output().matchAll(/worker started pid (\d+)/g)][2]?.[1]));
      expect(alive(third)).toBe(true);
      polling = false;
      await poller;
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(5);
      expect(alive(pids.web!)).toBe(true);
      expect(alive(pids.node!)).toBe(true);

      // Ctrl-C in a terminal signals the whole foreground process group.
      const exited = new Promise<number | null>((resolve) => host.child.on("exit", (c) => resolve(c)));
      process.kill(-host.child.pid!, "SIGINT");
      expect(await exited).toBe(0);
      expect(fs.readFileSync(orderFile, "utf8").trim().split("\n")).toEqual(["web SIGTERM", "worker SIGTERM", "node SIGTERM", "database stopped"]);
      expect(host.output()).toContain("[envace] stopped");
      // No error noise on the way down.
      expect(host.output()).not.toMatch(/Error|ECONN|exited with code [1-9]|was killed \(SIGTERM\)/);
    } finally {
      await host.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
