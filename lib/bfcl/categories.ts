/**
 * What a run may name as BFCL v4 data: `data.dataset = "bfcl:<item>[,<item>…]"`, each item a scoring
 * category (`multi_turn_base`, `simple_python`, `memory_kv`, …) or a group of them (`multi_turn`,
 * `non_live`, `all`, …). Pure, shared by the run-config schema (the config boundary), the new-run form,
 * the worker's BFCL environment and the BFCL report.
 */
import { SCORING_CATEGORIES, type ScoringCategory } from "./aggregate";
import { NO_BFCL_RESOURCES, notRunReason, type BfclResources } from "./not-run";

export const BFCL_DATASET_PREFIX = "bfcl:";

export const MULTI_TURN_CATEGORY_NAMES = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"] as const satisfies readonly ScoringCategory[];
export const MEMORY_CATEGORY_NAMES = ["memory_kv", "memory_vector", "memory_rec_sum"] as const satisfies readonly ScoringCategory[];
export const WEB_SEARCH_CATEGORY_NAMES = ["web_search_base", "web_search_no_snippet"] as const satisfies readonly ScoringCategory[];

const NON_LIVE: ScoringCategory[] = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple"];
const LIVE: ScoringCategory[] = ["live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"];
const IRRELEVANCE: ScoringCategory[] = ["irrelevance", "live_irrelevance"];

/** Named groups of categories (upstream's test-category groups, by the paper's columns). */
export const BFCL_GROUPS: Record<string, readonly ScoringCategory[]> = {
  all: SCORING_CATEGORIES,
  single_turn: [...NON_LIVE, ...LIVE, ...IRRELEVANCE, "live_relevance"],
  non_live: NON_LIVE,
  simple: ["simple_python", "simple_java", "simple_javascript"],
  live: LIVE,
  irrelevance: IRRELEVANCE,
  multi_turn: MULTI_TURN_CATEGORY_NAMES,
  memory: MEMORY_CATEGORY_NAMES,
  web_search: WEB_SEARCH_CATEGORY_NAMES,
  agentic: [...WEB_SEARCH_CATEGORY_NAMES, ...MEMORY_CATEGORY_NAMES],
};

/** One line of help per group, for the form. */
export const BFCL_GROUP_LABELS: Record<string, string> = {
  all: "every category (web search needs a search node and memory_vector an embedding node; without them they are reported as not run)",
  single_turn: "non-live, live, irrelevance and relevance",
  non_live: "Non-live AST: simple (Python, Java, JavaScript), multiple, parallel, parallel multiple",
  simple: "simple Python, Java and JavaScript",
  live: "Live AST: simple, multiple, parallel, parallel multiple",
  irrelevance: "irrelevance and live irrelevance",
  multi_turn: "Multi-turn: base, miss_func, miss_param, long_context",
  memory: "Memory: kv, vector (needs an embedding node), rec_sum",
  web_search: "Web search: base and no-snippet (needs a search node)",
  agentic: "web search and memory",
};

export type BfclCategory = ScoringCategory;
export const BFCL_CATEGORIES: readonly BfclCategory[] = SCORING_CATEGORIES;
export const isBfclCategory = (c: string): c is BfclCategory => (SCORING_CATEGORIES as readonly string[]).includes(c);
export const isMultiTurnCategory = (c: string): boolean => (MULTI_TURN_CATEGORY_NAMES as readonly string[]).includes(c);

export interface BfclNotRun {
  category: BfclCategory;
  reason: string;
}

export interface BfclSelection {
  /** Every category the dataset names, in BFCL's order, without repeats. */
  categories: BfclCategory[];
  /** The ones this product runs. */
  runnable: BfclCategory[];
  /** The ones it cannot run without a resource the run lacks, with the reason (reported as not run, never as 0). */
  notRun: BfclNotRun[];
}

/** `bfcl:<item>[,<item>…]` → the categories it names (runnable with `resources`), or a message saying what is wrong. */
export function parseBfclDataset(dataset: string, resources: BfclResources = NO_BFCL_RESOURCES): { ok: true; selection: BfclSelection } | { ok: false; message: string } {
  if (!dataset.startsWith(BFCL_DATASET_PREFIX)) return { ok: false, message: `${dataset} is not a BFCL dataset (bfcl:<category or group>[,…])` };
  const items = dataset.slice(BFCL_DATASET_PREFIX.length).split(",");
  const unknown = items.filter((i) => !isBfclCategory(i) && !Object.hasOwn(BFCL_GROUPS, i));
  if (items.length === 0 || items.some((i) => i === "")) return { ok: false, message: "name at least one BFCL category or group after bfcl:, separated by commas" };
  if (unknown.length) {
    return {
      ok: false,
      message: `unknown BFCL ${unknown.length === 1 ? "category or group" : "categories or groups"} ${unknown.map((u) => `"${u}"`).join(", ")} (groups: ${Object.keys(BFCL_GROUPS).join(", ")}; categories: ${SCORING_CATEGORIES.join(", ")})`,
    };
  }
  const named = new Set(items.flatMap((i) => (isBfclCategory(i) ? [i] : BFCL_GROUPS[i])));
  const categories = SCORING_CATEGORIES.filter((c) => named.has(c));
  const notRun = categories.flatMap((category) => {
    const reason = notRunReason(category, resources);
    return reason ? [{ category, reason }] : [];
  });
  const runnable = categories.filter((c) => notRunReason(c, resources) === null);
  if (runnable.length === 0) {
    return { ok: false, message: `nothing to run: ${notRun.map((n) => `${n.category} ${n.reason}`).join("; ")}` };
  }
  return { ok: true, selection: { categories, runnable, notRun } };
}

/** Why a run config's BFCL dataset is not acceptable for its kind, or null. Training runs on the multi-turn categories. */
export function bfclConfigProblem(dataset: string, kind: "train" | "eval", resources: BfclResources = NO_BFCL_RESOURCES): string | null {
  const parsed = parseBfclDataset(dataset, resources);
  if (!parsed.ok) return parsed.message;
  if (kind === "train") {
    const other = parsed.selection.categories.filter((c) => !isMultiTurnCategory(c));
    if (other.length) {
      return `BFCL training runs on the multi-turn categories only (${MULTI_TURN_CATEGORY_NAMES.join(", ")}); ${other.join(", ")} ${other.length === 1 ? "is" : "are"} for evaluation runs`;
    }
  }
  return null;
}

/** The data.dataset value for a set of categories and groups (as the form builds it). */
export function bfclDataset(items: readonly string[]): string {
  return `${BFCL_DATASET_PREFIX}${items.join(",")}`;
}
