/**
 * Loading a domain's data folder ($ENVACE_DATA_DIR/tau2-<domain>/) into a Tau2Source: the DBs (parsed once
 * per process per file; every environment works on its own copy), the split's tasks (checked: every tool
 * and function they name exists in the domain, and every initial state applies), the policy and the
 * user-simulator guidelines. Errors name the file and the path inside it.
 */
import { readFileSync } from "node:fs";
import { agentSystemPromptFor, agentToolSchemasFor, userToolSchemasFor } from "../../../../lib/tau2/prompts";
import { loadTasks, policyText, Tau2InputError, tau2DataFiles, type Tau2DataFiles, type Tau2Domain, type Tau2Task } from "../../../../lib/tau2/tasks";
import { tau2TasksProblem } from "../../../../lib/tau2/validate";
import { airlineDomainEnv } from "../domains/airline/domain";
import { loadAirlineDb, type AirlineDb } from "../domains/airline/model";
import { retailDomainEnv } from "../domains/retail/domain";
import { loadRetailDb, type RetailDb } from "../domains/retail/model";
import { telecomDomainEnv, TelecomRuntime } from "../domains/telecom/domain";
import { loadTelecomDb, loadTelecomUserDb } from "../domains/telecom/model";
import { errorMessage, Tau2Environment } from "./environment";
import type { TModel } from "./py";
import { taskEnvironment } from "./replay";
import type { Tau2Source } from "./source";

/** A domain's DBs, parsed. */
export type Tau2Data =
  | { domain: "retail"; db: RetailDb }
  | { domain: "airline"; db: AirlineDb }
  | { domain: "telecom"; db: TModel; userDb: TModel };

const dbCache = new Map<string, unknown>();
function cached<T>(key: string, load: () => T): T {
  if (!dbCache.has(key)) dbCache.set(key, load());
  return dbCache.get(key) as T;
}

/** The DBs from explicit files (or the domain's defaults); telecom's user DB defaults to the shared user_db.toml. */
export function loadTau2Data(domain: Tau2Domain, files: { db?: string; userDb?: string } = {}): Tau2Data {
  const defaults = tau2DataFiles(domain, { required: [] });
  const db = files.db ?? defaults.db;
  if (domain === "retail") return { domain, db: cached(`retail:${db}`, () => loadRetailDb(db)) };
  if (domain === "airline") return { domain, db: cached(`airline:${db}`, () => loadAirlineDb(db)) };
  const userDb = files.userDb ?? defaults.userDb!;
  return { domain, db: cached(`telecom:${db}`, () => loadTelecomDb(db)), userDb: cached(`telecom-user:${userDb}`, () => loadTelecomUserDb(userDb)) };
}

/** A factory of fresh environments over the data; telecom's share one runtime (one "process", see domains/telecom/state.ts). */
export function environmentFactory(data: Tau2Data, runtime = new TelecomRuntime()): (seed?: string) => Tau2Environment {
  switch (data.domain) {
    case "retail":
      return () => new Tau2Environment(retailDomainEnv(data.db));
    case "airline":
      return () => new Tau2Environment(airlineDomainEnv(data.db));
    case "telecom":
      return (seed = "") => new Tau2Environment(telecomDomainEnv(data.db, data.userDb, runtime, seed));
  }
}

/** The source of given tasks over given data (the CLIs: explicit files). */
export function tau2SourceOf(data: Tau2Data, tasks: Tau2Task[], texts: { policy: string; userGuidelines: string }, split: "train" | "test" = "train", runtime?: TelecomRuntime): Tau2Source {
  const domain = data.domain;
  return {
    domain,
    split,
    tasks,
    newEnv: environmentFactory(data, runtime),
    agentSystemPrompt: agentSystemPromptFor(domain, texts.policy),
    userGuidelines: texts.userGuidelines,
    agentTools: agentToolSchemasFor(domain),
    userTools: userToolSchemasFor(domain),
  };
}

/**
 * Tasks checked against their domain: names it knows (lib/tau2/validate.ts), and an initial state that
 * applies on a fresh environment. Throws a message naming the file, the task and the path.
 */
export function checkTasks(source: Tau2Source, file: string): void {
  const problem = tau2TasksProblem(source.domain, source.tasks, file);
  if (problem) throw new Tau2InputError(problem);
  for (const [i, task] of source.tasks.entries()) {
    if (!task.initial_state) continue;
    try {
      taskEnvironment(source, task);
    } catch (e) {
      throw new Tau2InputError(`${file}: task #${i} (id ${JSON.stringify(task.id)}) initial_state cannot be applied: ${errorMessage(e)}`);
    }
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new Tau2InputError(`cannot read ${path}: ${(e as Error).message}`);
  }
}

const taskCache = new Map<string, Tau2Task[]>();

/** A domain's split from the data folder, checked; a fresh runtime unless one is given (one per run). */
export function loadTau2Source(domain: Tau2Domain, split: "train" | "test", runtime = new TelecomRuntime()): Tau2Source {
  const files: Tau2DataFiles = tau2DataFiles(domain, { split });
  const data = loadTau2Data(domain);
  let tasks = taskCache.get(files.tasks);
  const fresh = !tasks;
  tasks ??= loadTasks(files.tasks);
  const texts = { policy: policyText(domain, files.policy.map(readText)), userGuidelines: readText(files.userGuidelines) };
  const source = tau2SourceOf(data, tasks, texts, split, runtime);
  if (fresh) {
    // Checked in a runtime of its own: applying initial states must not touch the run's (see domains/telecom/state.ts).
    checkTasks(tau2SourceOf(data, tasks, texts, split, new TelecomRuntime()), files.tasks);
    taskCache.set(files.tasks, tasks);
  }
  return source;
}
