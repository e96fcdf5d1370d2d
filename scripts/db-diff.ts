/**
 * Writes a migration: `npm run -s db:migration -- <name> [previous schema.prisma]`.
 * Diffs the previous schema (default: prisma/schema.prisma at git HEAD) against the working
 * prisma/schema.prisma with `prisma migrate diff --script`. The adapter-based CLI needs a reachable
 * database even for a schema-to-schema diff, so a throwaway embedded Postgres is started for it.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot, startEmbeddedPostgres } from "./lib/database";

const [name, previous] = process.argv.slice(2);
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run -s db:migration -- <name: a-z 0-9 _> [previous schema.prisma]");
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "envace-diff-"));
fs.chmodSync(tmp, 0o777);
const from = previous ?? path.join(tmp, "previous.prisma");
if (!previous) fs.writeFileSync(from, execFileSync("git", ["show", "HEAD:prisma/schema.prisma"], { cwd: repoRoot }));
const db = await startEmbeddedPostgres({ dataDir: path.join(tmp, "pg"), port: 57000 + Math.floor(Math.random() * 2000), database: "diff", throwaway: true });
try {
  const sql = execFileSync(
    path.join(repoRoot, "node_modules/.bin/prisma"),
    ["migrate", "diff", "--from-schema-datamodel", from, "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
    { cwd: repoRoot, env: { ...process.env, DATABASE_URL: db.url }, encoding: "utf8" },
  );
  if (!sql.trim() || /^-- This is an empty migration/.test(sql.trim())) {
    console.error("no schema change to migrate");
    process.exitCode = 1;
  } else {
    // After every existing migration (some were stamped ahead of the clock), so deploy applies it last.
    const latest = fs.readdirSync(path.join(repoRoot, "prisma/migrations")).filter((d) => /^\d{14}_/.test(d)).map((d) => d.slice(0, 14)).sort().at(-1);
    let stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    if (latest && stamp <= latest) stamp = String(BigInt(latest) + 1n);
    const dir = path.join(repoRoot, "prisma/migrations", `${stamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "migration.sql"), sql);
    console.log(path.relative(repoRoot, path.join(dir, "migration.sql")));
  }
} finally {
  await db.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
