/**
 * npm run -s tau2:calls -- [--domain retail|airline|telecom] --db <file> [--user-db <file>] [--tasks <file> --task-id <id>]
 *                          --calls <calls.json> [--dump <out.json>] [--dump-user <out.json>]
 *
 * Retail (also without --domain, exactly as before): runs [{"tool", "arguments"}] in order on a fresh copy of
 * the DB; one line {"tool", "error", "content"} per call, then {"db_hash"}.
 * Airline / telecom: builds the environment from the DBs (.json in the dump layout, or .toml; telecom's
 * --user-db defaults to the shared user_db.toml; construction runs sync_tools once), applies a task's initial
 * state with --tasks/--task-id, then runs each call [{"tool", "arguments", "requestor"}] as
 * Environment.get_response (the call, then sync_tools if it did not raise): one line
 * {"tool", "error", "content", "db_hash", "user_db_hash"?} per call (after the call and its sync), then
 * {"db_hash", "user_db_hash"?}. --dump / --dump-user write the final agent / user DB as JSON
 * (model_dump(mode="json")), which --db / --user-db load again.
 */
import { writeFileSync } from "node:fs";
import { toPlainJson, type OrderedJson } from "../../../../lib/python/json";
import { fromOrdered, PyDict } from "../../../../lib/python/values";
import { loadTasks, readOrderedJsonFile, Tau2InputError } from "../../../../lib/tau2/tasks";
import { tau2TasksProblem } from "../../../../lib/tau2/validate";
import { parseCalls, runCalls } from "../domains/retail/adapter";
import { loadRetailDb } from "../domains/retail/model";
import { TelecomRuntime } from "../domains/telecom/state";
import { loadTau2Data, tau2SourceOf } from "../harness/data";
import { runCalls as runEnvCalls, taskEnvironment } from "../harness/replay";
import { type CliMain, domainFlag, parseFlags, runCli } from "./args";

export const callsMain: CliMain = (argv, io) => {
  const flags = parseFlags(argv, ["domain", "db", "user-db", "tasks", "task-id", "calls", "dump", "dump-user"]);
  const domain = domainFlag(flags.domain);
  if (!flags.db) throw new Error(`--db <${domain === "telecom" ? "db.toml" : "db.json"}> is required`);
  if (!flags.calls) throw new Error("--calls <calls.json> is required");
  const tree = readOrderedJsonFile(flags.calls);
  const calls = parseCalls(toPlainJson(tree), flags.calls);
  if (domain === "retail") {
    for (const f of ["user-db", "tasks", "task-id", "dump-user"]) if (flags[f]) throw new Error(`--${f} is not used for retail`);
    const { results, env } = runCalls(calls, loadRetailDb(flags.db));
    for (const r of results) io.out(JSON.stringify({ tool: r.tool, error: r.error, content: r.content }) + "\n");
    io.out(JSON.stringify({ db_hash: env.hash() }) + "\n");
    if (flags.dump) writeFileSync(flags.dump, env.dump());
    return;
  }
  if (domain === "airline" && (flags["user-db"] || flags["dump-user"])) throw new Error("--user-db / --dump-user: the airline user has no DB");
  if (Boolean(flags.tasks) !== Boolean(flags["task-id"])) throw new Error("--tasks and --task-id go together");
  const data = loadTau2Data(domain, { db: flags.db, userDb: flags["user-db"] });
  const tasks = flags.tasks ? loadTasks(flags.tasks) : [];
  const source = tau2SourceOf(data, tasks, { policy: "", userGuidelines: "" }, "train", new TelecomRuntime());
  let env;
  if (flags["task-id"]) {
    const task = tasks.find((t) => t.id === flags["task-id"]);
    if (!task) throw new Tau2InputError(`${flags.tasks}: no task with id ${JSON.stringify(flags["task-id"])}`);
    const problem = tau2TasksProblem(domain, [task], flags.tasks!);
    if (problem) throw new Tau2InputError(problem);
    env = taskEnvironment(source, task);
  } else env = source.newEnv();
  // The arguments as Python reads them: ints and floats apart (the tools print them differently).
  const specs = calls.map((c, i) => {
    const args = ((tree as OrderedJson[])[i] as Map<string, OrderedJson>).get("arguments");
    return { tool: c.tool, requestor: c.requestor, arguments: args instanceof Map ? (fromOrdered(args) as PyDict) : new PyDict() };
  });
  const hashes = () => {
    const user = env.userDbHash();
    return { db_hash: env.dbHash(), ...(user !== null ? { user_db_hash: user } : {}) };
  };
  for (const spec of specs) {
    const [r] = runEnvCalls(env, [spec]);
    io.out(JSON.stringify({ tool: r!.tool, error: r!.error, content: r!.content, ...hashes() }) + "\n");
  }
  io.out(JSON.stringify(hashes()) + "\n");
  if (flags.dump) writeFileSync(flags.dump, env.domain.dump("assistant")!);
  if (flags["dump-user"]) writeFileSync(flags["dump-user"], env.domain.dump("user")!);
};

runCli(import.meta.url, callsMain);
