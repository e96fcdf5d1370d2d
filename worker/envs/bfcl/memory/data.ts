/**
 * BFCL v4 memory data, read from `$ENVACE_DATA_DIR/bfcl`: the questions (`data/BFCL_v4_memory.json`), their
 * answers (`data/possible_answer/BFCL_v4_memory.json`: acceptable answer strings) and the prerequisite
 * conversations that fill the memory first (`data/memory_prereq_conversation/memory_<scenario>.json`).
 * Ids are renamed per back end as upstream does (`memory_0-customer-0` → `memory_kv_0-customer-0`,
 * `memory_prereq_0-customer-0` → `memory_kv_prereq_0-customer-0`).
 */
import { z } from "zod";
import { bfclDataDir, bfclFile, BfclFileError, readJsonLines } from "../single-turn/files";

export const MEMORY_SCENARIOS = ["student", "customer", "finance", "healthcare", "notetaker"] as const;
export type MemoryScenario = (typeof MEMORY_SCENARIOS)[number];
/** Upstream's memory categories, one per back end. */
export const MEMORY_CATEGORIES = ["memory_kv", "memory_vector", "memory_rec_sum"] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];
/** The categories this product can run (memory_vector needs embedding weights, see lib/bfcl/not-run.ts). */
export const RUNNABLE_MEMORY_CATEGORIES = ["memory_kv", "memory_rec_sum"] as const;
export type RunnableMemoryCategory = (typeof RUNNABLE_MEMORY_CATEGORIES)[number];

export const backendClassOf = (category: MemoryCategory) => `MemoryAPI_${category.slice("memory_".length)}` as const;

const messageSchema = z.object({ role: z.string(), content: z.string() }).passthrough();
const questionSchema = z
  .object({ id: z.string().min(1), question: z.array(z.array(messageSchema)).min(1), involved_classes: z.array(z.string()), scenario: z.enum(MEMORY_SCENARIOS) })
  .passthrough();
const answerSchema = z.object({ id: z.string().min(1), ground_truth: z.array(z.string()).min(1) }).passthrough();
const prereqSchema = z.object({ id: z.string().min(1), question: z.array(z.array(messageSchema)).min(1) }).passthrough();

export interface MemoryQuestion {
  /** The id for this back end (`memory_kv_3-customer-3`). */
  id: string;
  scenario: MemoryScenario;
  question: { role: string; content: string }[][];
  /** Acceptable answers; one must appear in the final reply (agentic checker). */
  answers: string[];
}

export interface PrereqEntry {
  /** The id for this back end (`memory_kv_prereq_0-customer-0`). */
  id: string;
  scenario: MemoryScenario;
  /** User messages, one list per turn. */
  turns: { role: string; content: string }[][];
}

/** The questions of one memory category with their answers (aligned by line, ids must agree). */
export function loadMemoryQuestions(category: MemoryCategory, dir = bfclDataDir()): MemoryQuestion[] {
  const qFile = bfclFile("data/BFCL_v4_memory.json", dir);
  const aFile = bfclFile("data/possible_answer/BFCL_v4_memory.json", dir);
  const questions = readJsonLines(qFile, questionSchema);
  const answers = readJsonLines(aFile, answerSchema);
  if (questions.length !== answers.length) throw new BfclFileError(`${aFile}: ${answers.length} answers for ${questions.length} questions in ${qFile}`);
  return questions.map((q, i) => {
    const a = answers[i];
    if (a.value.id !== q.value.id) throw new BfclFileError(`${aFile}:${a.line}: id ${a.value.id} where ${qFile}:${q.line} has ${q.value.id}`);
    return { id: q.value.id.replaceAll("memory", category), scenario: q.value.scenario, question: q.value.question, answers: a.value.ground_truth };
  });
}

/** The prerequisite conversation of a scenario, in order (the first entry starts from an empty memory). */
export function loadPrereqConversation(category: MemoryCategory, scenario: MemoryScenario, dir = bfclDataDir()): PrereqEntry[] {
  const file = bfclFile(`data/memory_prereq_conversation/memory_${scenario}.json`, dir);
  return readJsonLines(file, prereqSchema).map((e) => {
    if (!e.value.id.includes(`-${scenario}-`)) throw new BfclFileError(`${file}:${e.line}: id ${e.value.id} is not of scenario ${scenario}`);
    return { id: e.value.id.replaceAll("memory", category), scenario, turns: e.value.question };
  });
}
