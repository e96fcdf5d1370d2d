/**
 * Categories this product cannot run offline, and why. They are reported as "not run" with the reason,
 * never scored 0 (the aggregation marks their columns N/A as upstream does for a category not evaluated).
 */
export const NOT_RUN_REASONS = {
  memory_vector:
    "needs the sentence-transformers model all-MiniLM-L6-v2 (embedding weights) and a faiss index, which cannot be downloaded here; " +
    "its retrieval cannot be reproduced without them",
  web_search_base: "queries the live web (SerpAPI search and page fetches), which this product cannot reach; results also change over time",
  web_search_no_snippet: "queries the live web (SerpAPI search and page fetches), which this product cannot reach; results also change over time",
} as const;

export type NotRunCategory = keyof typeof NOT_RUN_REASONS;
export const isNotRunCategory = (c: string): c is NotRunCategory => Object.hasOwn(NOT_RUN_REASONS, c);
