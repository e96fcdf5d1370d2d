/**
 * VitaBench task files: `$ENVACE_DATA_DIR/vitabench/<domain folder>/tasks[_en].json` (upstream's
 * data/vita/domains layout). Parsed as Python's json.load (ints stay ints, key order kept) because tool texts
 * print raw values (`{'price': 280, ...}`); checked with zod so a malformed file is named with the JSON path.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { vitaTaskFile, type VitaLanguage } from "./datasets";
import { parseOrderedJson, toPlainJson } from "../python/json";
import { fromOrdered, PyDict, type PyValue } from "../python/values";
import { dataDir as sharedDataDir } from "../tau2/tasks";

const rubricList = z.array(z.string()).nullable().optional();
/** The parts of a task the port reads besides its environment (which the models validate, with paths). */
export const vitaTaskSchema = z.object({
  id: z.string(),
  domain: z.string(),
  environment: z.record(z.string(), z.unknown()),
  // UserScenario.user_profile: Dict[str, Union[Dict, str, List]] (a number at the top level is refused upstream too).
  user_scenario: z.object({ user_profile: z.record(z.string(), z.union([z.record(z.string(), z.unknown()), z.string(), z.array(z.unknown())])) }),
  instructions: z.string(),
  evaluation_criteria: z
    .object({
      expected_states: z.array(z.object({ state_rubrics: rubricList }).passthrough()).nullable().optional(),
      overall_rubrics: rubricList,
    })
    .nullable()
    .optional(),
  message_history: z.array(z.unknown()).nullable().optional(),
});

export interface VitaTask {
  id: string;
  instructions: string;
  /** The task as Python values (environment, user_profile keep their int/float and key order). */
  py: PyDict;
  environment: PyDict;
  userProfile: PyDict;
  stateRubrics: string[][];
  overallRubrics: string[] | null;
  /** evaluation_criteria is None: upstream scores 1.0 without a judge. */
  noCriteria: boolean;
  hasExpectedStates: boolean;
  /** A non-empty message_history (upstream starts the conversation from it). */
  messageHistory: boolean;
}

export class VitaDataError extends Error {}

const cache = new Map<string, VitaTask[]>();

/** Resolve a task file given relative to $ENVACE_DATA_DIR/vitabench (or absolute). */
export function resolveTaskFile(file: string, dataDir = sharedDataDir()): string {
  return isAbsolute(file) ? file : join(dataDir, "vitabench", file);
}

export function loadVitaTasks(path: string): VitaTask[] {
  const hit = cache.get(path);
  if (hit) return hit;
  if (!existsSync(path)) throw new VitaDataError(`${path}: file not found`);
  let parsed;
  try {
    parsed = parseOrderedJson(readFileSync(path, "utf8"));
  } catch (e) {
    throw new VitaDataError(`${path}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!Array.isArray(parsed)) throw new VitaDataError(`${path}: $ must be a list of tasks`);
  const tasks = parsed.map((raw, i) => {
    const plain = toPlainJson(raw);
    const check = vitaTaskSchema.safeParse(plain);
    if (!check.success) {
      const issue = check.error.issues[0]!;
      const id = plain && typeof plain === "object" && typeof (plain as { id?: unknown }).id === "string" ? ` (task "${(plain as { id: string }).id}")` : "";
      throw new VitaDataError(`${path}: $[${i}]${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}${id}: ${issue.message}`);
    }
    const py = fromOrdered(raw) as PyDict;
    const t = check.data;
    const ec = t.evaluation_criteria;
    return {
      id: t.id,
      instructions: t.instructions,
      py,
      environment: py.get("environment") as PyDict,
      userProfile: (py.get("user_scenario") as PyDict).get("user_profile") as PyDict,
      stateRubrics: (ec?.expected_states ?? []).map((s) => s.state_rubrics ?? []),
      overallRubrics: ec?.overall_rubrics ?? null,
      noCriteria: !ec,
      hasExpectedStates: (ec?.expected_states ?? []).length > 0,
      messageHistory: (t.message_history ?? []).length > 0,
    } satisfies VitaTask;
  });
  cache.set(path, tasks);
  return tasks;
}

export function findTask(path: string, taskId: string): VitaTask {
  const t = loadVitaTasks(path).find((x) => x.id === taskId);
  if (!t) throw new VitaDataError(`${path}: no task "${taskId}"`);
  return t;
}

/** The task file of a domain and language, or an error saying which file to supply and where. */
export function domainTaskFile(domain: string, lang: VitaLanguage, dataDir = sharedDataDir()): string {
  const rel = vitaTaskFile(domain, lang);
  const path = join(dataDir, "vitabench", rel);
  if (!existsSync(path)) throw new VitaDataError(`VitaBench ${domain} (${lang}) needs ${rel}: supply upstream's data/vita/domains/${rel} as ${path}`);
  return path;
}

export type { PyValue };
