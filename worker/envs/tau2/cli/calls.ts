/**
 * npm run tau2:calls -- --db <db.json> --calls <calls.json> [--dump <out.json>]
 * Runs [{"tool", "arguments"}] in order on a fresh copy of the DB; prints one JSON line per call
 * {"tool", "error", "content"}, then {"db_hash"}; --dump writes the final DB in db.json layout.
 */
import { writeFileSync } from "node:fs";
import { loadRetailDb } from "../model";
import { parseCalls, runCalls } from "../replay";
import { readJsonFile } from "../tasks";
import { parseFlags, runCli } from "./args";

runCli(() => {
  const flags = parseFlags(process.argv.slice(2), ["db", "calls", "dump"]);
  if (!flags.db) throw new Error("--db <db.json> is required");
  if (!flags.calls) throw new Error("--calls <calls.json> is required");
  const calls = parseCalls(readJsonFile(flags.calls), flags.calls);
  const db = loadRetailDb(flags.db);
  const { results, env } = runCalls(calls, db);
  for (const r of results) process.stdout.write(JSON.stringify({ tool: r.tool, error: r.error, content: r.content }) + "\n");
  process.stdout.write(JSON.stringify({ db_hash: env.hash() }) + "\n");
  if (flags.dump) writeFileSync(flags.dump, env.dump());
});
