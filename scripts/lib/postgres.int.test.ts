/** The embedded PostgreSQL: durability, the per-install password, and running as root from a 0700 checkout. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, spawnTsx } from "../../test/processes";
import { embeddedLayout } from "./database";
import { installedBinaries, startEmbeddedPostgres, type EmbeddedDb } from "./postgres";

const isRoot = process.getuid?.() === 0;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A temporary folder the postgres user can enter (mkdtemp makes 0700 folders). */
function tempDir(prefix: string, mode = 0o755): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, mode);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(opts: Parameters<typeof startEmbeddedPostgres>[0]): Promise<EmbeddedDb> {
  const db = await startEmbeddedPostgres(opts);
  cleanups.push(() => db.stop());
  return db;
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

async function setting(url: string, name: string): Promise<string> {
  return (await query<Record<string, string>>(url, `show ${name}`))[0]![name]!;
}

function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

describe("embedded PostgreSQL durability", () => {
  it("the product's database keeps what it committed: fsync, synchronous_commit and full_page_writes stay on", async () => {
    const dir = tempDir("pg-durable-");
    const db = await started({ dataDir: path.join(dir, "pg"), port: await freePort(), database: "product" });
    expect(await setting(db.url, "fsync")).toBe("on");
    expect(await setting(db.url, "synchronous_commit")).toBe("on");
    expect(await setting(db.url, "full_page_writes")).toBe("on");
  });

  it("only a throwaway database trades them for speed", async () => {
    const dir = tempDir("pg-throwaway-");
    const db = await started({ dataDir: path.join(dir, "pg"), port: await freePort(), database: "scratch", throwaway: true });
    expect(await setting(db.url, "fsync")).toBe("off");
    expect(await setting(db.url, "synchronous_commit")).toBe("off");
    // A throwaway database keeps no password file.
    expect(fs.existsSync(path.join(dir, "pg-password"))).toBe(false);
  });
});

describe("embedded PostgreSQL password", () => {
  it("is generated per install, kept in a 0600 file, reused on the next start, and the fixed 'postgres' is refused", async () => {
    const dir = tempDir("pg-password-");
    const passwordFile = path.join(dir, "secrets", "pg-password");
    const port = await freePort();
    const db = await started({ dataDir: path.join(dir, "pg"), port, database: "product", passwordFile });
    const password = fs.readFileSync(passwordFile, "utf8").trim();
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(password).not.toBe("postgres");
    expect(fs.statSync(passwordFile).mode & 0o777).toBe(0o600);
    expect(decodeURIComponent(new URL(db.url).password)).toBe(password);
    await expect(query(withPassword(db.url, "postgres"), "select 1")).rejects.toMatchObject({ code: "28P01" });

    await db.stop();
    const again = await started({ dataDir: path.join(dir, "pg"), port, database: "product", passwordFile });
    expect(again.url).toBe(db.url);
    expect(await query(again.url, "select 1 as one")).toEqual([{ one: 1 }]);
  });

  it("a cluster from before generated passwords (password 'postgres') gets a generated one and keeps its data", async () => {
    const dir = tempDir("pg-legacy-");
    const port = await freePort();
    const legacyFile = path.join(dir, "legacy-password");
    fs.writeFileSync(legacyFile, "postgres\n");
    const old = await startEmbeddedPostgres({ dataDir: path.join(dir, "pg"), port, database: "product", passwordFile: legacyFile });
    await query(old.url, "create table kept (v text); insert into kept values ('committed before the upgrade')");
    await old.stop();

    const notes: string[] = [];
    const passwordFile = path.join(dir, "pg-password");
    const db = await started({ dataDir: path.join(dir, "pg"), port, database: "product", passwordFile, onNote: (l) => notes.push(l) });
    expect(fs.readFileSync(passwordFile, "utf8").trim()).not.toBe("postgres");
    expect(notes.join("\n")).toMatch(/replaced the embedded PostgreSQL's default password/);
    expect(await query(db.url, "select v from kept")).toEqual([{ v: "committed before the upgrade" }]);
    await expect(query(withPassword(db.url, "postgres"), "select 1")).rejects.toMatchObject({ code: "28P01" });
  });

  it("stop and start again (an outage) keeps the data and the URL", async () => {
    const dir = tempDir("pg-restart-");
    const db = await started({ dataDir: path.join(dir, "pg"), port: await freePort(), database: "product" });
    await query(db.url, "create table t (v int); insert into t values (1)");
    await db.stop();
    await expect(query(db.url, "select 1")).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await db.start();
    expect(await query(db.url, "select v from t")).toEqual([{ v: 1 }]);
  });
});

describe.runIf(isRoot)("as root, with the checkout in a folder the postgres user cannot enter (0700)", () => {
  it("runs the server binaries from a copy that user can reach", async () => {
    const home = tempDir("pg-root-home-", 0o700); // like /root
    const nativeDir = path.join(home, "checkout", "native");
    fs.cpSync(installedBinaries().nativeDir, nativeDir, { recursive: true, verbatimSymlinks: true });
    const runtimeDir = path.join(tempDir("pg-runtime-"), "envace");
    const notes: string[] = [];
    const db = await started({
      // As embeddedLayout() relocates it: folders that do not exist yet, created on the way.
      dataDir: path.join(runtimeDir, "checkout-0123456789", "pg"),
      port: await freePort(),
      database: "product",
      nativeDir,
      runtimeDir,
      onNote: (l) => notes.push(l),
    });
    expect(await query(db.url, "select 1 as one")).toEqual([{ one: 1 }]);
    expect(notes.join("\n")).toContain(`cannot enter ${home} (mode 0700)`);
    const copies = fs.readdirSync(runtimeDir).filter((d) => d.startsWith("postgres-"));
    expect(copies).toHaveLength(1);
    expect(fs.existsSync(path.join(runtimeDir, copies[0]!, "bin", "postgres"))).toBe(true);
  });

  it("keeps the product's data where that user can reach it, and says where", () => {
    const home = tempDir("pg-root-home-", 0o700);
    const checkout = path.join(home, "envace-studio");
    fs.mkdirSync(checkout);
    const layout = embeddedLayout({ ENVACE_PG_RUNTIME_DIR: "/var/lib/envace-test" }, checkout);
    expect(layout.dataDir).toMatch(/^\/var\/lib\/envace-test\/envace-studio-[0-9a-f]{10}\/pg$/);
    expect(layout.relocated).toContain(checkout);
    // The password stays in the checkout's .data, beside the session secret.
    expect(layout.passwordFile).toBe(path.join(checkout, ".data", "pg-password"));
    // A checkout the postgres user can enter keeps the default place.
    const open = tempDir("pg-root-open-");
    const openLayout = embeddedLayout({}, open);
    expect(openLayout.dataDir).toBe(path.join(open, ".data", "pg"));
    expect(openLayout.relocated).toBeUndefined();
  });

  it("`npm start` with a data directory that user cannot enter stops with one line naming the cause and the fix", async () => {
    const home = tempDir("pg-root-home-", 0o700);
    const child = spawnTsx("scripts/dev.ts", {
      DATABASE_URL: undefined,
      ENVACE_PG_DATA_DIR: path.join(home, "pg"),
      EMBEDDED_PG_PORT: String(await freePort()),
      PORT: String(await freePort()),
      NODE_PORT: String(await freePort()),
      ENVACE_SECRET: "dev-int-test-secret-0123456789abcdef",
    });
    const code = await new Promise<number | null>((resolve) => child.child.on("exit", (c) => resolve(c)));
    const lines = child.output().split("\n").filter((l) => l.trim());
    expect(code, child.output()).toBe(1);
    expect(lines, child.output()).toHaveLength(1);
    expect(lines[0]).toContain(`cannot enter ${home} (mode 0700)`);
    expect(lines[0]).toMatch(/ENVACE_PG_DATA_DIR|DATABASE_URL/);
    expect(child.output()).not.toMatch(/EACCES|\n\s+at /);
  });
});
