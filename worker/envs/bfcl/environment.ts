/**
 * `bfcl:<categories or groups>` as a run environment (worker/envs/environment.ts):
 * - evaluation runs: every runnable category the dataset names (multi-turn, single-turn AST, irrelevance
 *   and relevance, memory_kv and memory_rec_sum; web search with a search node `bfcl.search`, memory_vector
 *   with an embedding node `bfcl.embeddings`), or the tasks `data.instanceIds` names; without their node
 *   web search and memory_vector are logged and reported as not run, with the reason; the back ends answer for real
 *   (environment paradigm); per-category scores and the paper's columns become the step's metrics;
 * - training runs: the multi-turn categories (the run-config schema refuses others), in any paradigm, with
 *   shadow execution against the real back ends in the rehearse paradigm.
 * BFCL has no training split: a training run evaluates on a fixed sample of its tasks (logged).
 */
import type { PrismaClient } from "@prisma/client";
import type { RunConfig } from "../../../contracts/run-config";
import { createEmbeddingClient } from "../../clients/embeddings";
import { createSearchTransport } from "../../clients/search-node";
import { resolveNode } from "../../runner/nodes";
import { EmbeddingCache } from "./memory/vector";
import { isWebSearchCategory, webSearchInstances } from "./run/web-search";
import type { WebSearchTransport } from "./web-search/api";
import { BFCL_DATASET_PREFIX, isMultiTurnCategory, parseBfclDataset, type BfclCategory, type BfclSelection } from "../../../lib/bfcl/categories";
import { seededShuffle, stepSeed, takeCyclic } from "../../../lib/random";
import type { TaskInstance } from "../../engine/types";
import { POOL_STEP, type EnvironmentKind, type RunEnvironment } from "../environment";
import { contextFittingPolicy } from "../fit-context";
import { loadMultiTurnTasks, MULTI_TURN_CATEGORIES, type MultiTurnCategory } from "./data";
import { createScope } from "./world";
import { RUNNABLE_MEMORY_CATEGORIES, type RunnableMemoryCategory } from "./memory/data";
import { isSingleTurnCategory, loadSingleTurnCategory, type SingleTurnCategory } from "./single-turn/data";
import { MAXIMUM_STEP_LIMIT } from "./tools";
import { memoryInstances } from "./run/memory";
import { bfclEvalMetrics, bfclEvalReport } from "./run/metrics";
import { multiTurnInstance } from "./run/multi-turn";
import { singleTurnInstance } from "./run/single-turn";

export interface BfclSource {
  /** Data directory (default: ENVACE_DATA_DIR/bfcl). */
  dataDir?: string;
  /** The run's search back end (bfcl.search.node), for the web-search categories. */
  search?: WebSearchTransport;
  /** The run's embeddings (bfcl.embeddings), for memory_vector. */
  embeddings?: EmbeddingCache;
}

const isMemory = (c: string): c is RunnableMemoryCategory => (RUNNABLE_MEMORY_CATEGORIES as readonly string[]).includes(c);

/** Every instance of one runnable category, in data order. */
export function categoryInstances(category: BfclCategory, source: BfclSource = {}): TaskInstance[] {
  if ((MULTI_TURN_CATEGORIES as readonly string[]).includes(category)) {
    const tasks = loadMultiTurnTasks(category as MultiTurnCategory, source.dataDir);
    // Long-context tasks read long_context.py: fail before the run starts when it is missing.
    if (tasks.some((t) => t.longContext)) createScope({ dataDir: source.dataDir }).longContext();
    return tasks.map((t) => multiTurnInstance(t, source.dataDir));
  }
  if (isSingleTurnCategory(category)) return loadSingleTurnCategory(category as SingleTurnCategory, source.dataDir).map(singleTurnInstance);
  if (isMemory(category)) return memoryInstances(category, source.dataDir);
  if (category === "memory_vector") {
    if (!source.embeddings) throw new Error("BFCL memory_vector needs an embedding node: set bfcl.embeddings {node, model}");
    return memoryInstances(category, source.dataDir, source.embeddings);
  }
  if (isWebSearchCategory(category)) {
    if (!source.search) throw new Error(`BFCL ${category} needs a search node: set bfcl.search.node`);
    return webSearchInstances(category, source.search, source.dataDir);
  }
  throw new Error(`BFCL category ${category} cannot be run here`);
}

/** The instances of a selection, restricted to `instanceIds` when given (each must exist). */
export function selectInstances(selection: BfclSelection, instanceIds: readonly string[], source: BfclSource = {}): TaskInstance[] {
  const all = selection.runnable.flatMap((c) => categoryInstances(c, source));
  if (instanceIds.length === 0) return all;
  const byId = new Map(all.map((i) => [i.id, i]));
  const missing = instanceIds.filter((id) => !byId.has(id));
  if (missing.length) {
    throw new Error(
      `data.instanceIds: no task ${missing.slice(0, 5).map((m) => `"${m}"`).join(", ")}${missing.length > 5 ? ` (+${missing.length - 5} more)` : ""} in ${selection.runnable.join(", ")}`,
    );
  }
  return [...new Set(instanceIds)].map((id) => byId.get(id)!);
}

/** The search and embedding clients of the nodes a run's `bfcl` settings name (the launch check verified their kinds). */
export async function bfclResources(prisma: PrismaClient, config: RunConfig): Promise<BfclSource> {
  const source: BfclSource = {};
  if (config.bfcl?.search) {
    const node = await resolveNode(prisma, config.bfcl.search.node, "bfcl.search");
    if (node.kind !== "search") throw new Error(`bfcl.search.node: node "${node.name}" is of kind ${node.kind}, not a search node`);
    source.search = createSearchTransport({ baseUrl: node.baseUrl, apiKey: node.apiKey, nodeName: node.name });
  }
  if (config.bfcl?.embeddings) {
    const { model } = config.bfcl.embeddings;
    const node = await resolveNode(prisma, config.bfcl.embeddings.node, "bfcl.embeddings");
    if (node.kind !== "openai") throw new Error(`bfcl.embeddings.node: node "${node.name}" is of kind ${node.kind}; embeddings need an OpenAI-compatible node`);
    source.embeddings = new EmbeddingCache(createEmbeddingClient({ baseUrl: node.baseUrl, apiKey: node.apiKey, model, nodeName: node.name }));
  }
  return source;
}

const seededPick = <T>(items: readonly T[], count: number, seed: number, step: number): T[] => takeCyclic(seededShuffle(items, stepSeed(seed, step)), count);

/** The environment of one run. */
export function bfclRunEnvironment(config: RunConfig, note: (message: string) => void = () => {}, source: BfclSource = {}): RunEnvironment {
  const parsed = parseBfclDataset(config.data.dataset, { search: Boolean(source.search), embeddings: Boolean(source.embeddings) });
  if (!parsed.ok) throw new Error(`data.dataset: ${parsed.message}`);
  const selection = parsed.selection;
  if (config.kind === "train" && selection.categories.some((c) => !isMultiTurnCategory(c))) {
    throw new Error(`data.dataset: BFCL training runs on the multi-turn categories only, not ${selection.categories.filter((c) => !isMultiTurnCategory(c)).join(", ")}`);
  }
  for (const n of selection.notRun) note(`BFCL ${n.category} is not run: it ${n.reason}`);
  const { instanceIds, instancesPerStep, seed, poolSize, split } = config.data;
  if (split === "test") note("BFCL has one split: data.split is ignored (every task of the selected categories, or data.instanceIds)");
  const selected = selectInstances(selection, instanceIds, source);
  // data.poolSize: train on a fixed seeded draw of that many tasks (as the built-in domains do).
  const chosen = poolSize !== undefined && !instanceIds.length && config.kind === "train" ? seededShuffle(selected, stepSeed(seed, POOL_STEP)).slice(0, poolSize) : selected;
  const multiTurn = selection.runnable.some(isMultiTurnCategory);
  if (multiTurn && config.rollout.maxAssistantTurns < 2 * MAXIMUM_STEP_LIMIT) {
    note(
      `rollout.maxAssistantTurns (${config.rollout.maxAssistantTurns}) may end a BFCL multi-turn task before upstream would (up to ${MAXIMUM_STEP_LIMIT} steps per user turn); such a task is scored as force-terminated`,
    );
  }
  let evalSet: TaskInstance[] | undefined;
  return {
    forStep: (step) => (instanceIds.length ? takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep) : seededPick(chosen, instancesPerStep, seed, step)),
    evalSet() {
      if (evalSet) return evalSet;
      if (config.kind === "eval" || instanceIds.length) return (evalSet = chosen);
      note(`BFCL has no training split: evaluating on a fixed sample of ${Math.min(instancesPerStep, chosen.length)} of the ${chosen.length} training tasks`);
      return (evalSet = seededPick(chosen, Math.min(instancesPerStep, chosen.length), seed, 0));
    },
    // Function documents, long-context results and rehearse prompts exceed a small node's context.
    samplingPolicy: (node, standard) => (node.protocol === "tinker" ? contextFittingPolicy(node.policy) : standard),
    evaluationParadigm: { paradigm: "environment", why: "BFCL evaluation runs the real back ends" },
    evaluationMetrics: (result) => bfclEvalMetrics(result.trajectories),
    evaluationReport: (result) => bfclEvalReport(result.trajectories),
  };
}

export const bfclEnvironments: EnvironmentKind = {
  prefix: BFCL_DATASET_PREFIX,
  forms: "bfcl:<category or group>[,…]",
  open: async ({ config, note, prisma }) => bfclRunEnvironment(config, note, await bfclResources(prisma, config)),
};
