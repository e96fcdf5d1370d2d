/**
 * `npm start`'s supervision, the failures of a long-lived installation (real child processes, the real
 * embedded Postgres service): a Postgres that dies is restarted like any other service, and one whose service
 * process was killed with -9 is shut down before the restart, so it never keeps the port; a supervisor killed
 * with SIGKILL leaves no service process and no port behind.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processRunning } from "./processes";
import { freePort, spawnTsx, type Child } from "../../test/processes";

async function until<T>(what: string, check: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const alive = processRunning;

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

describe("the supervisor's failures", () => {
  let dir: string;
  let host: Child;
  let webPort: number;
  let pgPort: number;
  let pids: Record<string, number>;
  const started = () => [...host.output().matchAll(/\[database\] PostgreSQL pid (\d+) listening on \S+ \(service pid (\d+)\)/g)].map((m) => ({ postgres: Number(m[1]), service: Number(m[2]) }));
  const postgresPids = () => started().map((s) => s.postgres);
  const query = async () => {
    const password = fs.readFileSync(path.join(dir, "pg-password"), "utf8").trim();
    const client = new pg.Client({ connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/envace`, connectionTimeoutMillis: 3000 });
    client.on("error", () => {});
    try {
      await client.connect();
      return (await client.query<{ one: number }>("select 1 as one")).rows[0]!.one;
    } finally {
      await client.end().catch(() => {});
    }
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "supervisor-pg-"));
    fs.chmodSync(dir, 0o755); // as root, Postgres runs as the postgres user, who must enter it
    fs.writeFileSync(path.join(dir, "order"), "");
    webPort = await freePort();
    pgPort = await freePort();
    host = spawnTsx("test/fixtures/supervisor/host.ts", { WEB_PORT: String(webPort), ORDER_FILE: path.join(dir, "order"), PG_DATA_DIR: path.join(dir, "pg"), PG_PORT: String(pgPort) });
    pids = JSON.parse(await until("the services to start", () => /\[envace\] up (\{.*\})/.exec(host.output())?.[1], 90_000)) as Record<string, number>;
  });
  afterAll(async () => {
    if (process.env.DEBUG_SUPERVISOR) console.log(host.output());
    await host.kill("SIGKILL");
    for (const pid of [...Object.values(pids ?? {}), ...postgresPids()]) if (alive(pid)) process.kill(pid, "SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("restarts an embedded Postgres that died, and the database answers again", async () => {
    expect(await query()).toBe(1);
    const [first] = postgresPids();
    expect(first).toBeGreaterThan(0);
    process.kill(first!, "SIGKILL");
    await until("the database to come back", () => host.output().includes("[envace] database is back (restart 1)"), 60_000);
    expect(host.output()).toMatch(/\[envace\] database exited with code 1 after [\d.]+ s; restarting in 0\.3 s/);
    const second = (await until("the new server's pid", () => postgresPids()[1]))!;
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
    expect(await query()).toBe(1);
  });

  it("kill -9 of the Postgres service alone: the server it left is shut down, and a new one serves the port", async () => {
    const before = started().at(-1)!;
    const startsBefore = started().length;
    expect(alive(before.postgres)).toBe(true);
    process.kill(before.service, "SIGKILL");
    await until("the database to come back", () => host.output().includes("[envace] database is back (restart 2)"), 90_000);
    expect(host.output()).toMatch(new RegExp(`\\[envace\\] database left processes running \\(process group ${before.service}\\); stopping them \\(SIGINT\\) before the restart`));
    expect(alive(before.postgres)).toBe(false);
    // The new service's own line can reach the output a moment after the supervisor's "is back".
    const after = await until("the new server's line", () => started().length > startsBefore && started().at(-1));
    expect(after.postgres).not.toBe(before.postgres);
    expect(alive(after.postgres)).toBe(true);
    expect(await query()).toBe(1);
  });

  it("kill -9 of the supervisor: every service exits, no port stays taken", async () => {
    const services = { database: started().at(-1)!.service, node: pids.node!, worker: pids.worker!, web: pids.web!, postgres: postgresPids().at(-1)! };
    for (const [name, pid] of Object.entries(services)) expect(alive(pid), name).toBe(true);
    expect(await portFree(webPort)).toBe(false);
    expect(await portFree(pgPort)).toBe(false);

    process.kill(pids.supervisor!, "SIGKILL");
    await until("every service to exit", () => Object.values(services).every((pid) => !alive(pid)), 30_000);
    expect(await portFree(webPort)).toBe(true);
    expect(await portFree(pgPort)).toBe(true);
    // They stopped the way SIGTERM stops them (not killed mid-write).
    expect(fs.readFileSync(path.join(dir, "order"), "utf8")).toMatch(/web SIGTERM/);
  });
});
