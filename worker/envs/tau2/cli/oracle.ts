/**
 * npm run -s tau2:oracle -- [--domain retail|airline|telecom] --tasks <tasks.json> [--db <file>] [--user-db <file>]
 *
 * Replays each task's gold actions as tau2-bench v0.2.0's evaluator builds its gold environment (a fresh
 * environment, the task's initial state, make_tool_call per action, errors counted, no sync between calls)
 * and prints one JSON line per task, in file order:
 *   retail (also without --domain, exactly as before): {"task_id", "errors", "db_hash"}, then "replayed N/M tasks";
 *   airline / telecom: {"task_id", "errors", "db_hash", "content_sha256": [...]}; telecom adds the hashes after
 *   the initial state, the user DB hash, the env assertions on the synced replay (get_response per action)
 *   and that replay's own "synced" block. The summary goes to stderr.
 * DBs default to $ENVACE_DATA_DIR/tau2-<domain>/ (db.json; telecom db.toml + user_db.toml). One invocation is
 * one tau2 process: telecom's tasks share its runtime (domains/telecom/state.ts), in file order.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { dataDir, loadTasks, Tau2InputError } from "../../../../lib/tau2/tasks";
import { tau2TasksProblem } from "../../../../lib/tau2/validate";
import { replayGoldActions } from "../domains/retail/adapter";
import { loadRetailDb } from "../domains/retail/model";
import { TelecomRuntime } from "../domains/telecom/state";
import { loadTau2Data, tau2SourceOf } from "../harness/data";
import { replayGold, replaySynced } from "../harness/replay";
import { type CliMain, domainFlag, parseFlags, runCli } from "./args";

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

export const oracleMain: CliMain = (argv, io) => {
  const flags = parseFlags(argv, ["domain", "tasks", "db", "user-db"]);
  const domain = domainFlag(flags.domain);
  if (!flags.tasks) throw new Error("--tasks <tasks.json> is required");
  const tasks = loadTasks(flags.tasks);
  if (domain === "retail") {
    if (flags["user-db"]) throw new Error("--user-db: the retail user has no DB");
    const db = loadRetailDb(flags.db ?? path.join(dataDir(), "tau2-retail", "db.json"));
    let replayed = 0;
    for (const task of tasks) {
      const { task_id, errors, db_hash } = replayGoldActions(task, db);
      io.out(JSON.stringify({ task_id, errors, db_hash }) + "\n");
      replayed++;
    }
    io.out(`replayed ${replayed}/${tasks.length} tasks\n`);
    return;
  }
  const problem = tau2TasksProblem(domain, tasks, flags.tasks);
  if (problem) throw new Tau2InputError(problem);
  if (domain === "airline" && flags["user-db"]) throw new Error("--user-db: the airline user has no DB");
  const data = loadTau2Data(domain, { db: flags.db, userDb: flags["user-db"] });
  const source = tau2SourceOf(data, tasks, { policy: "", userGuidelines: "" }, "train", new TelecomRuntime());
  for (const task of tasks) {
    const gold = replayGold(source, task);
    const line: Record<string, unknown> = { task_id: task.id, errors: gold.errors, db_hash: gold.db_hash, content_sha256: gold.results.map((r) => sha256(r.content)) };
    if (domain === "telecom") {
      const synced = replaySynced(source, task);
      Object.assign(line, {
        initial_db_hash: gold.initial_db_hash,
        initial_user_db_hash: gold.initial_user_db_hash,
        user_db_hash: gold.user_db_hash,
        env_assertions: synced.env_assertions,
        synced: { errors: synced.errors, db_hash: synced.db_hash, user_db_hash: synced.user_db_hash, content_sha256: synced.results.map((r) => sha256(r.content)) },
      });
    }
    io.out(JSON.stringify(line) + "\n");
  }
  io.err(`replayed ${tasks.length}/${tasks.length} ${domain} tasks\n`);
};

runCli(import.meta.url, oracleMain);
