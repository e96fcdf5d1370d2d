/**
 * Categories that need an outside resource, and why they are not run without it. Without the resource they
 * are reported as "not run" with the reason, never scored 0 (the aggregation marks their columns N/A as
 * upstream does for a category not evaluated). A run names the resources in `bfcl` (contracts/run-config.ts):
 * `bfcl.search.node` (a registered node of kind search) and `bfcl.embeddings` ({node, model}, an
 * OpenAI-compatible `/v1/embeddings`); the launch check verifies both nodes.
 */
const SEARCH_REASON =
  "needs a search node: register a node of kind search (a SerpAPI-compatible search API, as upstream's WebSearchAPI queries) and set bfcl.search.node";

export const NOT_RUN_REASONS = {
  memory_vector:
    "needs an embedding node: set bfcl.embeddings to an OpenAI-compatible node and embedding model serving /v1/embeddings (upstream embeds with sentence-transformers all-MiniLM-L6-v2)",
  web_search_base: SEARCH_REASON,
  web_search_no_snippet: SEARCH_REASON,
} as const;

export type NotRunCategory = keyof typeof NOT_RUN_REASONS;
export const isNotRunCategory = (c: string): c is NotRunCategory => Object.hasOwn(NOT_RUN_REASONS, c);

/** The outside resources a run provides (from its `bfcl` settings). */
export interface BfclResources {
  search: boolean;
  embeddings: boolean;
}
export const NO_BFCL_RESOURCES: BfclResources = { search: false, embeddings: false };

/** The resources a run config's `bfcl` settings name (a stored config read back as JSON is fine). */
export function bfclResourcesOf(settings: { search?: unknown; embeddings?: unknown } | undefined): BfclResources {
  return { search: Boolean(settings?.search), embeddings: Boolean(settings?.embeddings) };
}

/** Why a category cannot run with these resources, or null when it can. */
export function notRunReason(category: string, resources: BfclResources = NO_BFCL_RESOURCES): string | null {
  if (!isNotRunCategory(category)) return null;
  if (category === "memory_vector") return resources.embeddings ? null : NOT_RUN_REASONS.memory_vector;
  return resources.search ? null : NOT_RUN_REASONS[category];
}

/** The nodes a stored run config's `bfcl` settings name, with the setting (for the guard that refuses to delete a node a run needs). */
export function bfclNodeRefsOf(config: unknown): { node: string; role: string }[] {
  const bfcl = config && typeof config === "object" ? (config as { bfcl?: { search?: { node?: unknown }; embeddings?: { node?: unknown } } }).bfcl : undefined;
  const refs: { node: string; role: string }[] = [];
  if (typeof bfcl?.search?.node === "string") refs.push({ node: bfcl.search.node, role: "bfcl.search" });
  if (typeof bfcl?.embeddings?.node === "string") refs.push({ node: bfcl.embeddings.node, role: "bfcl.embeddings" });
  return refs;
}
