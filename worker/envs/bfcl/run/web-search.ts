/**
 * BFCL's web-search categories as engine instances for evaluation runs, as upstream's harness runs them:
 * the 100 questions of `BFCL_v4_web_search.json`, renamed per category (`web_search_3` →
 * `web_search_no_snippet_3`), `WebSearchAPI` as the one tool class (`initial_config.show_snippet` false in
 * web_search_no_snippet), the agentic answer-format system prompt in front of the question, up to 20 steps,
 * scored by the agentic checker on the last reply that is not a function call.
 *
 * The search goes to the run's search node (`bfcl.search.node`), page fetches to the pages themselves.
 * A search node that keeps rate-limiting past the retries fails the episode as an environment error (the
 * policy is not to blame), left out of the scores.
 */
import { z } from "zod";
import type { ToolSchema } from "../../../engine/io";
import { EnvironmentFailure, type EpisodeScore, type EpisodeScoreContext, type TaskInstance } from "../../../engine/types";
import { SearchRateLimited } from "../../../clients/search-node";
import { loadMemoryPrompts } from "../memory/prompt";
import { bfclDataDir, bfclFile, BfclFileError, readJsonLines } from "../single-turn/files";
import { MAXIMUM_STEP_LIMIT } from "../tools";
import { WebSearchApi, type WebSearchTransport } from "../web-search/api";
import { notScoredReason } from "../scoring/outcome";
import { functionDocTools, scoreAgenticEpisode } from "./agentic-episode";
import { BFCL_DATA_SOURCE_PREFIX, callString } from "./multi-turn";

export const WEB_SEARCH_CATEGORIES = ["web_search_base", "web_search_no_snippet"] as const;
export type WebSearchCategory = (typeof WEB_SEARCH_CATEGORIES)[number];
export const isWebSearchCategory = (c: string): c is WebSearchCategory => (WEB_SEARCH_CATEGORIES as readonly string[]).includes(c);

const messageSchema = z.object({ role: z.string(), content: z.string() }).passthrough();
const questionSchema = z.object({ id: z.string().min(1), question: z.array(z.array(messageSchema)).min(1), involved_classes: z.array(z.string()) }).passthrough();
const answerSchema = z.object({ id: z.string().min(1), ground_truth: z.array(z.string()).min(1) }).passthrough();

export interface WebSearchQuestion {
  /** The id in this category (`web_search_base_0`). */
  id: string;
  question: { role: string; content: string }[][];
  answers: string[];
}

/** The questions and their answers (aligned by line; ids must agree), renamed for the category. */
export function loadWebSearchQuestions(category: WebSearchCategory, dir = bfclDataDir()): WebSearchQuestion[] {
  const qFile = bfclFile("data/BFCL_v4_web_search.json", dir);
  const aFile = bfclFile("data/possible_answer/BFCL_v4_web_search.json", dir);
  const questions = readJsonLines(qFile, questionSchema);
  const answers = readJsonLines(aFile, answerSchema);
  if (questions.length !== answers.length) throw new BfclFileError(`${aFile}: ${answers.length} answers for ${questions.length} questions in ${qFile}`);
  return questions.map((q, i) => {
    const a = answers[i];
    if (a.value.id !== q.value.id) throw new BfclFileError(`${aFile}:${a.line}: id ${a.value.id} where ${qFile}:${q.line} has ${q.value.id}`);
    if (!q.value.involved_classes.includes("WebSearchAPI")) throw new BfclFileError(`${qFile}:${q.line}: involved_classes ${JSON.stringify(q.value.involved_classes)} lacks WebSearchAPI`);
    return { id: q.value.id.replace("web_search", category), question: q.value.question, answers: a.value.ground_truth };
  });
}

/** `multi_turn_func_doc/web_search.json` as OpenAI tools. */
export function webSearchTools(dataDir?: string): ToolSchema[] {
  return functionDocTools("data/multi_turn_func_doc/web_search.json", dataDir);
}

export function scoreWebSearchQuestion(category: WebSearchCategory, q: WebSearchQuestion, ctx: EpisodeScoreContext): EpisodeScore {
  return scoreAgenticEpisode({ category, taskId: q.id, termination: ctx.terminationReason }, q.answers, ctx, notScoredReason(ctx));
}

/** Every question of a web-search category, answered through `transport`. */
export function webSearchInstances(category: WebSearchCategory, transport: WebSearchTransport, dataDir?: string): TaskInstance[] {
  const tools = webSearchTools(dataDir);
  const format = loadMemoryPrompts(dataDir).agenticResponseFormat;
  const showSnippet = category !== "web_search_no_snippet";
  return loadWebSearchQuestions(category, dataDir).map((q) => {
    const [first, ...rest] = q.question;
    return {
      id: q.id,
      dataSource: `${BFCL_DATA_SOURCE_PREFIX}${category}`,
      messages: [{ role: "system", content: format }, ...first.map((m) => ({ role: m.role as "user" | "system", content: m.content }))],
      tools,
      followUpUserMessages: rest.map((turn) => turn.map((m) => m.content).join("\n")),
      checklists: [],
      maxActsPerUserTurn: MAXIMUM_STEP_LIMIT,
      environment: {
        create: () => {
          const api = new WebSearchApi(transport, showSnippet);
          return {
            async execute(name: string, argumentsJson: string) {
              const c = callString(name, argumentsJson);
              try {
                return await api.execute(name, argumentsJson, "error" in c ? c.error : undefined);
              } catch (err) {
                if (err instanceof SearchRateLimited) throw new EnvironmentFailure("RATE_LIMITED", err.message);
                throw err;
              }
            },
            snapshot: () => ({ show_snippet: showSnippet }),
          };
        },
      },
      scoreEpisode: (ctx) => scoreWebSearchQuestion(category, q, ctx),
    };
  });
}
