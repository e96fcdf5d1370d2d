/**
 * npm run tau2:oracle -- --tasks <tasks.json> [--db <db.json>]
 * Replays each task's gold actions on a fresh DB and prints one JSON line per task
 * {"task_id", "errors", "db_hash"}, then "replayed N/M tasks".
 */
import path from "node:path";
import { loadRetailDb } from "../model";
import { replayGoldActions } from "../replay";
import { dataDir, loadTasks } from "../tasks";
import { parseFlags, runCli } from "./args";

runCli(() => {
  const flags = parseFlags(process.argv.slice(2), ["tasks", "db"]);
  if (!flags.tasks) throw new Error("--tasks <tasks.json> is required");
  const tasks = loadTasks(flags.tasks);
  const db = loadRetailDb(flags.db ?? path.join(dataDir(), "tau2-retail", "db.json"));
  let replayed = 0;
  for (const task of tasks) {
    const { task_id, errors, db_hash } = replayGoldActions(task, db);
    process.stdout.write(JSON.stringify({ task_id, errors, db_hash }) + "\n");
    replayed++;
  }
  process.stdout.write(`replayed ${replayed}/${tasks.length} tasks\n`);
});
