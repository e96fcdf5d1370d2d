/**
 * The tau2 task file format (tau2-bench v0.2.0 `data_model/tasks.py`), validated with zod, plus where each
 * domain's data lives. Shared by the worker's environment (worker/envs/tau2) and the launch check
 * (lib/launch-check), which reads the same files on the web host.
 *
 * Arguments keep Python's int/float distinction: a task's `2.0` is a float and `2` an int, as `json.load`
 * reads them (tools print them differently). `pyArgumentsOf` gives an action's or environment function
 * call's arguments as Python values; the plain `arguments` are for code that only reads them.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseOrderedJson, toPlainJson, type OrderedJson } from "../python/json";
import { fromOrdered, fromPlainJson, PyDict, type PyValue } from "../python/values";

export * from "./datasets";
import { type Tau2Domain, tau2UserHasTools } from "./datasets";

const requestor = z.enum(["assistant", "user"]);

const actionSchema = z.object({
  action_id: z.string(),
  name: z.string().min(1),
  arguments: z.record(z.unknown()),
  info: z.unknown().optional(),
  requestor: requestor.optional(),
  compare_args: z.array(z.string()).nullable().optional(),
});

const envFunctionCallSchema = z.object({
  env_type: requestor,
  func_name: z.string().min(1),
  arguments: z.record(z.unknown()),
});

const envAssertionSchema = envFunctionCallSchema.extend({
  assert_value: z.boolean().default(true),
  message: z.string().nullable().optional(),
});

const toolCallSchema = z.object({ id: z.string().default(""), name: z.string(), arguments: z.record(z.unknown()), requestor: requestor.default("assistant") });
const messageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string().nullable().optional() }),
  z.object({ role: z.literal("assistant"), content: z.string().nullable().optional(), tool_calls: z.array(toolCallSchema).nullable().optional() }),
  z.object({ role: z.literal("user"), content: z.string().nullable().optional(), tool_calls: z.array(toolCallSchema).nullable().optional() }),
  z.object({ role: z.literal("tool"), id: z.string(), content: z.string().nullable().optional(), requestor: requestor.default("assistant"), error: z.boolean().default(false) }),
]);

const instructionsSchema = z.object({
  domain: z.string(),
  reason_for_call: z.string(),
  known_info: z.string().nullable().optional(),
  unknown_info: z.string().nullable().optional(),
  task_instructions: z.string(),
});

export const rewardTypes = ["DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION"] as const;

export const tau2TaskSchema = z.object({
  id: z.string().min(1),
  description: z.unknown().optional(),
  user_scenario: z.object({
    persona: z.string().nullable().optional(),
    instructions: instructionsSchema,
  }),
  ticket: z.string().nullable().optional(),
  initial_state: z
    .object({
      initialization_data: z
        .object({ agent_data: z.record(z.unknown()).nullable().optional(), user_data: z.record(z.unknown()).nullable().optional() })
        .nullable()
        .optional(),
      initialization_actions: z.array(envFunctionCallSchema).nullable().optional(),
      message_history: z.array(messageSchema).nullable().optional(),
    })
    .nullable()
    .optional(),
  evaluation_criteria: z
    .object({
      actions: z.array(actionSchema).nullable().optional(),
      env_assertions: z.array(envAssertionSchema).nullable().optional(),
      communicate_info: z.array(z.string()).nullable().optional(),
      nl_assertions: z.array(z.string()).nullable().optional(),
      reward_basis: z.array(z.enum(rewardTypes)).optional(),
    })
    .nullable()
    .optional(),
});

export type Tau2Task = z.infer<typeof tau2TaskSchema>;
export type Tau2Action = z.infer<typeof actionSchema>;
export type Tau2EnvFunctionCall = z.infer<typeof envFunctionCallSchema>;
export type Tau2EnvAssertion = z.infer<typeof envAssertionSchema>;
export type Tau2HistoryMessage = z.infer<typeof messageSchema>;

/** v0.2.0's default when a task has no reward_basis. */
export const DEFAULT_REWARD_BASIS = ["DB", "COMMUNICATE"] as const;
export const rewardBasisOf = (task: Tau2Task): string[] => [...(task.evaluation_criteria?.reward_basis ?? DEFAULT_REWARD_BASIS)];

const pyArgs = new WeakMap<object, PyDict>();
const pyData = new WeakMap<object, PyValue>();

/** The arguments as Python values (ints and floats apart when the task came from a file). */
export function pyArgumentsOf(holder: { arguments: Record<string, unknown> }): PyDict {
  const known = pyArgs.get(holder.arguments);
  if (known) return known;
  const made = fromPlainJson(holder.arguments) as PyDict;
  pyArgs.set(holder.arguments, made);
  return made;
}

/** Python values of initialisation data (the agent's or user's update dict). */
export function pyDataOf(data: Record<string, unknown>): PyValue {
  return pyData.get(data) ?? fromPlainJson(data);
}

export class Tau2InputError extends Error {}

function describeIssues(issues: z.ZodIssue[]): string {
  return issues
    .slice(0, 4)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

const get = (v: OrderedJson | undefined, k: string | number): OrderedJson | undefined =>
  v === undefined || v === null ? undefined : typeof k === "number" ? (Array.isArray(v) ? v[k] : undefined) : v instanceof Map ? v.get(k) : undefined;

/** Remember the Python values of a task's argument dicts, read from the file's parse tree. */
function attachPython(task: Tau2Task, tree: OrderedJson | undefined): void {
  const keep = (holder: { arguments: Record<string, unknown> } | undefined, node: OrderedJson | undefined) => {
    const args = get(node, "arguments");
    if (holder && args instanceof Map) pyArgs.set(holder.arguments, fromOrdered(args) as PyDict);
  };
  const ec = get(tree, "evaluation_criteria");
  task.evaluation_criteria?.actions?.forEach((a, i) => keep(a, get(get(ec, "actions"), i)));
  task.evaluation_criteria?.env_assertions?.forEach((a, i) => keep(a, get(get(ec, "env_assertions"), i)));
  const is = get(tree, "initial_state");
  task.initial_state?.initialization_actions?.forEach((a, i) => keep(a, get(get(is, "initialization_actions"), i)));
  const data = task.initial_state?.initialization_data;
  for (const side of ["agent_data", "user_data"] as const) {
    const node = get(get(is, "initialization_data"), side);
    if (data?.[side] && node instanceof Map) pyData.set(data[side]!, fromOrdered(node));
  }
  task.initial_state?.message_history?.forEach((m, i) => {
    if ((m.role === "assistant" || m.role === "user") && m.tool_calls) m.tool_calls.forEach((c, j) => keep(c, get(get(get(get(is, "message_history"), i), "tool_calls"), j)));
  });
}

/**
 * Validate a parsed tasks file; the error names the position and id of the first bad task. `tree` is the
 * file's order- and type-keeping parse (parseOrderedJson), when the caller has it.
 */
export function parseTasks(value: unknown, source = "tasks file", tree?: OrderedJson): Tau2Task[] {
  if (!Array.isArray(value)) throw new Tau2InputError(`${source}: expected a JSON array of tasks`);
  const tasks: Tau2Task[] = [];
  const seen = new Set<string>();
  value.forEach((raw, i) => {
    const result = tau2TaskSchema.safeParse(raw);
    const id = raw && typeof raw === "object" && "id" in raw ? JSON.stringify((raw as { id: unknown }).id) : "(no id)";
    if (!result.success) throw new Tau2InputError(`${source}: task #${i} (id ${id}) is invalid: ${describeIssues(result.error.issues)}`);
    if (seen.has(result.data.id)) throw new Tau2InputError(`${source}: task #${i} repeats id ${id}`);
    seen.add(result.data.id);
    if (tree !== undefined) attachPython(result.data, get(tree, i));
    tasks.push(result.data);
  });
  return tasks;
}

export function loadTasks(file: string): Tau2Task[] {
  const tree = readOrderedJsonFile(file);
  return parseTasks(toPlainJson(tree), file, tree);
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new Tau2InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

export function readJsonFile(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Tau2InputError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** A JSON file as Python's json.load reads it (key order, ints apart from floats). */
export function readOrderedJsonFile(file: string): OrderedJson {
  const text = readText(file);
  try {
    return parseOrderedJson(text);
  } catch (err) {
    throw new Tau2InputError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The checkout this module lives in. The bundled web server has no usable module URL (see
 * lib/renderers/registry.ts packageFile), so there the working directory (the checkout) stands in.
 */
function repoRoot(): string {
  try {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
    if (existsSync(path.join(root, "prisma", "schema.prisma"))) return root;
  } catch {
    // not a file URL: bundled
  }
  return process.cwd();
}

/** The shared data dir: $ENVACE_DATA_DIR, else <repoRoot>/../shared/data. */
export function dataDir(): string {
  return process.env.ENVACE_DATA_DIR ?? path.resolve(repoRoot(), "../shared/data");
}

export type RetailFileKey = "db" | "tasks" | "goldReplay" | "policy" | "userGuidelines";
export type Tau2FileKey = "db" | "userDb" | "tasks" | "goldReplay" | "policy" | "userGuidelines";

export interface Tau2DataFiles {
  domain: Tau2Domain;
  dir: string;
  /** The agent's DB. */
  db: string;
  /** The user's DB (telecom's phone), or null. */
  userDb: string | null;
  tasks: string;
  goldReplay: string;
  /** The policy files, joined as upstream joins them (`policyText`). */
  policy: string[];
  /** The user-simulator guidelines variant the domain uses (with tools when the user has tools). */
  userGuidelines: string;
}

/**
 * Paths of a domain's files under <data dir>/tau2-<domain>/. `split` picks tasks.<split>.json. Throws a
 * message naming ENVACE_DATA_DIR when any of the `required` files is missing.
 */
export function tau2DataFiles(domain: Tau2Domain, opts: { split?: "train" | "test"; required?: Tau2FileKey[] } = {}): Tau2DataFiles {
  const dir = path.join(dataDir(), `tau2-${domain}`);
  const f = (name: string) => path.join(dir, name);
  const files: Tau2DataFiles = {
    domain,
    dir,
    db: f(domain === "telecom" ? "db.toml" : "db.json"),
    userDb: domain === "telecom" ? f("user_db.toml") : null,
    tasks: f(`tasks.${opts.split ?? "train"}.json`),
    goldReplay: f("gold-replay.train.json"),
    policy: domain === "telecom" ? [f("main_policy.md"), f("tech_support_manual.md")] : [f("policy.md")],
    userGuidelines: f(tau2UserHasTools(domain) ? "user-simulator-guidelines-tools.md" : "user-simulator-guidelines.md"),
  };
  const required = opts.required ?? ["db", "userDb", "tasks", "policy", "userGuidelines"];
  const paths: Record<Tau2FileKey, string[]> = {
    db: [files.db],
    userDb: files.userDb ? [files.userDb] : [],
    tasks: [files.tasks],
    goldReplay: [files.goldReplay],
    policy: files.policy,
    userGuidelines: [files.userGuidelines],
  };
  const missing = required.flatMap((k) => paths[k]).filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw new Tau2InputError(
      `tau2 ${domain} data not found (${missing.join(", ")}). Set ENVACE_DATA_DIR to a folder containing tau2-${domain}/ ` +
        `(see worker/envs/tau2/README.md); default is <repo>/../shared/data.`,
    );
  }
  return files;
}

/**
 * Paths of the retail files under <data dir>/tau2-retail/ (the shape retail callers have always used).
 */
export function retailDataFiles(opts: { split?: "train" | "test"; required?: RetailFileKey[] } = {}) {
  const files = tau2DataFiles("retail", { split: opts.split, required: opts.required ?? ["db", "tasks", "policy", "userGuidelines"] });
  return { dir: files.dir, db: files.db, tasks: files.tasks, goldReplay: files.goldReplay, policy: files.policy[0]!, userGuidelines: files.userGuidelines };
}

/** The agent's policy text as upstream builds it from the domain's files (telecom: main policy + tech-support manual). */
export function policyText(domain: Tau2Domain, texts: string[]): string {
  if (domain !== "telecom") return texts[0]!;
  return `<main_policy>\n${texts[0]}\n</main_policy>\n<tech_support_policy>\n${texts[1]}\n</tech_support_policy>`;
}
