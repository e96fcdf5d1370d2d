/**
 * The single-turn categories of BFCL v4 and their data: test entries (`data/BFCL_v4_<category>.json`: the
 * question and the function documents) and, for the AST categories, the possible answers
 * (`data/possible_answer/BFCL_v4_<category>.json`), read from `$ENVACE_DATA_DIR/bfcl`.
 */
import { z } from "zod";
import type { Language } from "./ast-checker";
import { bfclDataDir, bfclFile, BfclFileError, readJsonLines } from "./files";
import type { PyDict, PyValue } from "./values";

/** Categories scored by the AST checker (upstream's `ast_file_runner`). */
export const AST_CATEGORIES = [
  "simple_python",
  "simple_java",
  "simple_javascript",
  "multiple",
  "parallel",
  "parallel_multiple",
  "live_simple",
  "live_multiple",
  "live_parallel",
  "live_parallel_multiple",
] as const;
/** Categories scored by whether the model called a function at all (upstream's `relevance_file_runner`). */
export const RELEVANCE_CATEGORIES = ["irrelevance", "live_irrelevance", "live_relevance"] as const;
export const SINGLE_TURN_CATEGORIES = [...AST_CATEGORIES, ...RELEVANCE_CATEGORIES] as const;

export type AstCategory = (typeof AST_CATEGORIES)[number];
export type RelevanceCategory = (typeof RELEVANCE_CATEGORIES)[number];
export type SingleTurnCategory = (typeof SINGLE_TURN_CATEGORIES)[number];

export const isAstCategory = (c: string): c is AstCategory => (AST_CATEGORIES as readonly string[]).includes(c);
export const isRelevanceCategory = (c: string): c is RelevanceCategory => (RELEVANCE_CATEGORIES as readonly string[]).includes(c);
export const isSingleTurnCategory = (c: string): c is SingleTurnCategory => (SINGLE_TURN_CATEGORIES as readonly string[]).includes(c);

/** Upstream's `is_java` / `is_js`: the checker's language for a category. */
export function languageOf(category: string): Language {
  if (category.includes("javascript")) return "javascript";
  if (category.includes("java")) return "java";
  return "python";
}

const paramDocSchema = z
  .object({
    type: z.string(),
    description: z.string().optional(),
    items: z.object({ type: z.string() }).passthrough().optional(),
  })
  .passthrough();

export const functionDocSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z
      .object({
        type: z.string(),
        properties: z.record(z.string(), paramDocSchema),
        required: z.array(z.string()),
      })
      .passthrough(),
  })
  .passthrough();

const messageSchema = z.object({ role: z.string(), content: z.string() }).passthrough();

const entrySchema = z
  .object({
    id: z.string().min(1),
    question: z.array(z.array(messageSchema)).min(1),
    function: z.array(functionDocSchema),
  })
  .passthrough();

const answerSchema = z.object({
  id: z.string().min(1),
  ground_truth: z.array(z.record(z.string(), z.record(z.string(), z.array(z.unknown()))).refine((call) => Object.keys(call).length === 1, "each call has exactly one function name")),
});

export type FunctionDocJson = z.infer<typeof functionDocSchema>;

export interface SingleTurnEntry {
  id: string;
  category: SingleTurnCategory;
  language: Language;
  /** Messages per turn, as upstream gives them to the model. */
  question: { role: string; content: string }[][];
  /** The function documents as in the data file (what the checker reads; see `prompt.ts` for the model's view). */
  functions: FunctionDocJson[];
  /** The possible answers (`ground_truth`) as Python values; absent for relevance/irrelevance. */
  possibleAnswer?: PyValue[];
}

/** Loads one single-turn category (entries, and the possible answers of AST categories aligned by line). */
export function loadSingleTurnCategory(category: SingleTurnCategory, dir = bfclDataDir()): SingleTurnEntry[] {
  const entriesFile = bfclFile(`data/BFCL_v4_${category}.json`, dir);
  const entries = readJsonLines(entriesFile, entrySchema);
  const language = languageOf(category);
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.value.id)) throw new BfclFileError(`${entriesFile}:${e.line}: duplicate id ${e.value.id}`);
    seen.add(e.value.id);
  }
  if (!isAstCategory(category)) {
    return entries.map((e) => ({ id: e.value.id, category, language, question: e.value.question, functions: e.value.function }));
  }
  const answersFile = bfclFile(`data/possible_answer/BFCL_v4_${category}.json`, dir);
  const answers = readJsonLines(answersFile, answerSchema);
  if (answers.length !== entries.length) {
    throw new BfclFileError(`${answersFile}: ${answers.length} possible answers for ${entries.length} entries in ${entriesFile}`);
  }
  return entries.map((e, i) => {
    const a = answers[i];
    // Upstream aligns answers with entries by position; a different id at the same position is a broken file.
    if (a.value.id !== e.value.id) throw new BfclFileError(`${answersFile}:${a.line}: id ${a.value.id} where ${entriesFile}:${e.line} has ${e.value.id}`);
    const groundTruth = groundTruthOf(a.py);
    return { id: e.value.id, category, language, question: e.value.question, functions: e.value.function, possibleAnswer: groundTruth };
  });
}

/** The Python-typed copy of `ground_truth` (the schema already checked its shape on the same line). */
const groundTruthOf = (line: PyValue): PyValue[] => (line as PyDict).get("ground_truth") as PyValue[];
