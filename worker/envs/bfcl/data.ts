/**
 * Reading BFCL v4 multi-turn data at run time from `$ENVACE_DATA_DIR/bfcl` (default
 * `<repo>/../shared/data/bfcl`): the test entries and ground truth of the four multi-turn categories,
 * the function documents per back-end class, and the long-context padding constants (parsed from the
 * reference `long_context.py`, never copied into this repository). Errors name the file and line.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseModuleAssignments } from "../../../lib/python/syntax";
import { fromOrdered, PyDict, type PyValue } from "../../../lib/python/values";
import { JsonSyntaxError, parseOrderedJson } from "../../../lib/python/json";

export const MULTI_TURN_CATEGORIES = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"] as const;
export type MultiTurnCategory = (typeof MULTI_TURN_CATEGORIES)[number];

/** The back-end classes of the multi-turn categories and their function-document files. */
export const CLASS_FUNC_DOC_FILES = {
  GorillaFileSystem: "gorilla_file_system.json",
  MathAPI: "math_api.json",
  MessageAPI: "message_api.json",
  TwitterAPI: "posting_api.json",
  TicketAPI: "ticket_api.json",
  TradingBot: "trading_bot.json",
  TravelAPI: "travel_booking.json",
  VehicleControlAPI: "vehicle_control.json",
} as const;
export type BfclClassName = keyof typeof CLASS_FUNC_DOC_FILES;
export const BFCL_CLASS_NAMES = Object.keys(CLASS_FUNC_DOC_FILES) as BfclClassName[];
export const isBfclClassName = (name: string): name is BfclClassName => Object.hasOwn(CLASS_FUNC_DOC_FILES, name);

export class BfclDataError extends Error {}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** `$ENVACE_DATA_DIR/bfcl`, else `<repo>/../shared/data/bfcl`. */
export function bfclDataDir(): string {
  const base = process.env.ENVACE_DATA_DIR ?? path.resolve(repoRoot, "../shared/data");
  return path.join(base, "bfcl");
}

/** Throws a message saying what is missing and where it was looked for. */
export function requireBfclPath(relative: string, dir = bfclDataDir()): string {
  const full = path.join(dir, relative);
  if (!existsSync(full)) {
    throw new BfclDataError(
      `BFCL data not found: ${full} is missing. Set ENVACE_DATA_DIR to a folder containing bfcl/ ` +
        `(the BFCL v4 data and reference, see worker/envs/bfcl/README.md); default is <repo>/../shared/data.`,
    );
  }
  return full;
}

// ---------------------------------------------------------------------------------------------------------------
// Test entries

const messageSchema = z.object({ role: z.string(), content: z.string() }).passthrough();

export const multiTurnEntrySchema = z
  .object({
    id: z.string().min(1),
    question: z.array(z.array(messageSchema)),
    initial_config: z.record(z.string(), z.unknown()),
    involved_classes: z.array(z.string()).min(1),
    path: z.array(z.string()).optional(),
    excluded_function: z.array(z.string()).optional(),
    missed_function: z.record(z.string().regex(/^\d+$/, "turn index"), z.array(z.string())).optional(),
  })
  .passthrough();

export const groundTruthSchema = z.object({ id: z.string().min(1), ground_truth: z.array(z.array(z.string())) }).passthrough();

/** One multi-turn task: the entry, its ground truth and its initial configuration as Python values. */
export interface BfclTask {
  id: string;
  category: MultiTurnCategory;
  /** User messages per turn (a holdout turn of miss_func is empty upstream). */
  question: { role: string; content: string }[][];
  involvedClasses: BfclClassName[];
  /** `initial_config` as Python values (dict order and int/float kept as `json.loads` gives them). */
  initialConfig: PyDict;
  /** miss_func: turn index → function names revealed at that turn. */
  missedFunctions: Map<number, string[]>;
  excludedFunctions: string[];
  groundTruth: string[][];
  longContext: boolean;
}

/** The category of a multi-turn id (`multi_turn_base_12` → `multi_turn_base`), as upstream derives it. */
export function categoryOfId(id: string): string {
  const i = id.lastIndexOf("_");
  return i < 0 ? id : id.slice(0, i);
}

/** Upstream's long-context switch: `"long_context" in category or "composite" in category`. */
export const isLongContextId = (id: string) => {
  const c = categoryOfId(id);
  return c.includes("long_context") || c.includes("composite");
};

interface JsonLine {
  line: number;
  raw: unknown;
  ordered: PyValue;
}

/** Parse a JSON Lines file; a malformed line is reported with its file and line number. */
export function readJsonLines(file: string): JsonLine[] {
  const text = readFileSync(file, "utf8");
  const out: JsonLine[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      out.push({ line: index + 1, raw: JSON.parse(line), ordered: fromOrdered(parseOrderedJson(line)) });
    } catch (err) {
      const detail = err instanceof JsonSyntaxError || err instanceof SyntaxError ? err.message : String(err);
      throw new BfclDataError(`${file}:${index + 1}: not valid JSON: ${detail}`);
    }
  });
  return out;
}

function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** Build a task from a parsed entry and its ground truth, checking classes and the turn structure. */
export function taskFromEntry(
  entry: z.infer<typeof multiTurnEntrySchema>,
  initialConfig: PyValue,
  groundTruth: string[][],
  where: string,
): BfclTask {
  const unknown = entry.involved_classes.filter((c) => !isBfclClassName(c));
  if (unknown.length > 0) throw new BfclDataError(`${where}: task ${entry.id} names unknown classes: ${unknown.join(", ")} (known: ${BFCL_CLASS_NAMES.join(", ")})`);
  if (!(initialConfig instanceof PyDict)) throw new BfclDataError(`${where}: task ${entry.id}: initial_config must be an object`);
  for (const key of initialConfig.keys()) {
    if (typeof key !== "string" || !isBfclClassName(key)) throw new BfclDataError(`${where}: task ${entry.id}: initial_config has an unknown class ${String(key)}`);
  }
  if (groundTruth.length !== entry.question.length) {
    throw new BfclDataError(`${where}: task ${entry.id} has ${entry.question.length} turns but its ground truth has ${groundTruth.length}`);
  }
  const missed = new Map<number, string[]>();
  for (const [turn, names] of Object.entries(entry.missed_function ?? {})) {
    const t = Number(turn);
    if (t >= entry.question.length) throw new BfclDataError(`${where}: task ${entry.id}: missed_function turn ${t} is past the last turn`);
    missed.set(t, names);
  }
  const id = entry.id;
  const category = categoryOfId(id);
  return {
    id,
    category: (MULTI_TURN_CATEGORIES as readonly string[]).includes(category) ? (category as MultiTurnCategory) : "multi_turn_base",
    question: entry.question.map((turn) => turn.map((m) => ({ role: m.role, content: m.content }))),
    involvedClasses: entry.involved_classes as BfclClassName[],
    initialConfig,
    missedFunctions: missed,
    excludedFunctions: entry.excluded_function ?? [],
    groundTruth,
    longContext: isLongContextId(id),
  };
}

/** All tasks of one multi-turn category, with their ground truth. */
export function loadMultiTurnTasks(category: MultiTurnCategory, dir = bfclDataDir()): BfclTask[] {
  const entriesFile = requireBfclPath(`data/BFCL_v4_${category}.json`, dir);
  const answersFile = requireBfclPath(`data/possible_answer/BFCL_v4_${category}.json`, dir);
  const answers = new Map<string, string[][]>();
  for (const { line, raw } of readJsonLines(answersFile)) {
    const parsed = groundTruthSchema.safeParse(raw);
    if (!parsed.success) throw new BfclDataError(`${answersFile}:${line}: ${formatIssues(parsed.error)}`);
    answers.set(parsed.data.id, parsed.data.ground_truth);
  }
  return readJsonLines(entriesFile).map(({ line, raw, ordered }) => {
    const parsed = multiTurnEntrySchema.safeParse(raw);
    if (!parsed.success) throw new BfclDataError(`${entriesFile}:${line}: ${formatIssues(parsed.error)}`);
    const gt = answers.get(parsed.data.id);
    if (!gt) throw new BfclDataError(`${entriesFile}:${line}: task ${parsed.data.id} has no ground truth in ${answersFile}`);
    const config = (ordered as PyDict).get("initial_config") ?? null;
    return taskFromEntry(parsed.data, config, gt, `${entriesFile}:${line}`);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Function documents

export const functionDocSchema = z
  .object({
    name: z.string().min(1),
    description: z.string(),
    parameters: z.object({ type: z.string(), properties: z.record(z.string(), z.any()), required: z.array(z.string()).optional() }).passthrough(),
    response: z.unknown().optional(),
  })
  .passthrough();
export type FunctionDoc = z.infer<typeof functionDocSchema>;

const docCache = new Map<string, FunctionDoc[]>();

/** The function documents of one class (upstream's `multi_turn_func_doc/<file>.json`), in file order. */
export function loadFunctionDocs(className: BfclClassName, dir = bfclDataDir()): FunctionDoc[] {
  const file = requireBfclPath(`data/multi_turn_func_doc/${CLASS_FUNC_DOC_FILES[className]}`, dir);
  const hit = docCache.get(file);
  if (hit) return hit;
  const docs = readJsonLines(file).map(({ line, raw }) => {
    const parsed = functionDocSchema.safeParse(raw);
    if (!parsed.success) throw new BfclDataError(`${file}:${line}: ${formatIssues(parsed.error)}`);
    return parsed.data;
  });
  docCache.set(file, docs);
  return docs;
}

// ---------------------------------------------------------------------------------------------------------------
// long_context.py

export interface LongContextData {
  values: Map<string, PyValue>;
  source: string;
}

export const LONG_CONTEXT_MODULE = "reference/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py";
const longContextCache = new Map<string, LongContextData>();

/** The constants of upstream's long_context.py, parsed (not evaluated) once per process. */
export function loadLongContext(dir = bfclDataDir()): LongContextData {
  const file = requireBfclPath(LONG_CONTEXT_MODULE, dir);
  const hit = longContextCache.get(file);
  if (hit) return hit;
  let values: Map<string, PyValue>;
  try {
    values = parseModuleAssignments(readFileSync(file, "utf8"));
  } catch (err) {
    throw new BfclDataError(`${file}: cannot read the long-context constants: ${(err as Error).message}`);
  }
  const data = { values, source: file };
  longContextCache.set(file, data);
  return data;
}
