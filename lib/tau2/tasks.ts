/**
 * The tau2 task file format (spec §12), validated with zod, plus where the data lives. Shared by the
 * worker's environment (worker/envs/tau2) and the launch check (lib/launch-check), which reads the
 * same files on the web host.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const actionSchema = z.object({
  action_id: z.string(),
  name: z.string().min(1),
  arguments: z.record(z.unknown()),
  info: z.unknown().optional(),
  requestor: z.enum(["assistant", "user"]).optional(),
  compare_args: z.array(z.string()).nullable().optional(),
});

const instructionsSchema = z.object({
  domain: z.string(),
  reason_for_call: z.string(),
  known_info: z.string().nullable().optional(),
  unknown_info: z.string().nullable().optional(),
  task_instructions: z.string(),
});

export const tau2TaskSchema = z.object({
  id: z.string().min(1),
  description: z.unknown().optional(),
  user_scenario: z.object({
    persona: z.string().nullable().optional(),
    instructions: instructionsSchema,
  }),
  initial_state: z.null().optional(),
  evaluation_criteria: z
    .object({
      actions: z.array(actionSchema).nullable().optional(),
      communicate_info: z.array(z.string()).nullable().optional(),
      nl_assertions: z.array(z.string()).nullable().optional(),
      env_assertions: z.unknown().optional(),
      reward_basis: z.array(z.enum(["DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION"])).optional(),
    })
    .nullable()
    .optional(),
});

export type Tau2Task = z.infer<typeof tau2TaskSchema>;

export const TAU2_RETAIL_DATASET = "tau2:retail";

/** "tau2:retail/<task id>" ⇄ task id (data.instanceIds takes either). */
export const tau2InstanceId = (taskId: string) => `${TAU2_RETAIL_DATASET}/${taskId}`;
export const tau2TaskIdOf = (instanceId: string) => (instanceId.startsWith(`${TAU2_RETAIL_DATASET}/`) ? instanceId.slice(TAU2_RETAIL_DATASET.length + 1) : instanceId);
export type Tau2Action = z.infer<typeof actionSchema>;

export class Tau2InputError extends Error {}

function describeIssues(issues: z.ZodIssue[]): string {
  return issues
    .slice(0, 4)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

/** Validate a parsed tasks file; the error names the position and id of the first bad task. */
export function parseTasks(value: unknown, source = "tasks file"): Tau2Task[] {
  if (!Array.isArray(value)) throw new Tau2InputError(`${source}: expected a JSON array of tasks`);
  const tasks: Tau2Task[] = [];
  const seen = new Set<string>();
  value.forEach((raw, i) => {
    const result = tau2TaskSchema.safeParse(raw);
    const id = raw && typeof raw === "object" && "id" in raw ? JSON.stringify((raw as { id: unknown }).id) : "(no id)";
    if (!result.success) throw new Tau2InputError(`${source}: task #${i} (id ${id}) is invalid: ${describeIssues(result.error.issues)}`);
    if (seen.has(result.data.id)) throw new Tau2InputError(`${source}: task #${i} repeats id ${id}`);
    seen.add(result.data.id);
    tasks.push(result.data);
  });
  return tasks;
}

export function loadTasks(file: string): Tau2Task[] {
  return parseTasks(readJsonFile(file), file);
}

export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Tau2InputError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
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

/**
 * Paths of the retail files under <data dir>/tau2-retail/. `split` picks tasks.<split>.json. Throws a
 * message naming ENVACE_DATA_DIR when any of the `required` files is missing.
 */
export function retailDataFiles(
  opts: { split?: "train" | "test"; required?: RetailFileKey[] } = {},
) {
  const dir = path.join(dataDir(), "tau2-retail");
  const files = {
    dir,
    db: path.join(dir, "db.json"),
    tasks: path.join(dir, `tasks.${opts.split ?? "train"}.json`),
    goldReplay: path.join(dir, "gold-replay.train.json"),
    policy: path.join(dir, "policy.md"),
    userGuidelines: path.join(dir, "user-simulator-guidelines.md"),
  };
  const required = opts.required ?? ["db", "tasks", "policy", "userGuidelines"];
  const missing = required.map((k) => files[k]).filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw new Tau2InputError(
      `tau2 retail data not found (${missing.join(", ")}). Set ENVACE_DATA_DIR to a folder containing tau2-retail/ ` +
        `(see worker/envs/tau2/README.md); default is <repo>/../shared/data.`,
    );
  }
  return files;
}
