/**
 * BFCL v4's score aggregation, exactly as upstream's `eval_runner_helper.generate_leaderboard_csv` computes
 * it, as a pure function from per-category results to the summary (no files, no pandas):
 *
 * - a category that was not evaluated counts as accuracy 0 with its dataset size, and is displayed "N/A";
 * - Non-live = unweighted mean of Simple (itself the unweighted mean of Python, Java, JavaScript), Multiple,
 *   Parallel, Parallel Multiple (the "overall" ignores missing parts for display; the "summary" shows N/A);
 * - Live = mean of live Simple, Multiple, Parallel, Parallel Multiple weighted by entry counts;
 * - Irrelevance = unweighted mean of irrelevance and live_irrelevance; Relevance = live_relevance;
 * - Multi-turn = unweighted mean of base, miss_func, miss_param, long_context;
 * - Web search = mean of base and no_snippet; Memory = mean of kv, vector, rec_sum; Agentic = mean of the two;
 * - Overall = 10 % Non-live + 10 % Live + 10 % Irrelevance + 30 % Multi-turn + 40 % Agentic.
 * Sums run in upstream's order so results agree to the last bit (worker/envs/bfcl/scoring/aggregate.golden.test.ts).
 */

/** Every scoring category of BFCL v4 and its number of entries (what upstream counts for a category not run). */
export const BFCL_V4_ENTRY_COUNTS = {
  simple_python: 400,
  simple_java: 100,
  simple_javascript: 50,
  multiple: 200,
  parallel: 200,
  parallel_multiple: 200,
  irrelevance: 240,
  live_simple: 258,
  live_multiple: 1053,
  live_parallel: 16,
  live_parallel_multiple: 24,
  live_irrelevance: 884,
  live_relevance: 16,
  multi_turn_base: 200,
  multi_turn_miss_func: 200,
  multi_turn_miss_param: 200,
  multi_turn_long_context: 200,
  web_search_base: 100,
  web_search_no_snippet: 100,
  memory_kv: 155,
  memory_vector: 155,
  memory_rec_sum: 155,
} as const;

export type ScoringCategory = keyof typeof BFCL_V4_ENTRY_COUNTS;
export const SCORING_CATEGORIES = Object.keys(BFCL_V4_ENTRY_COUNTS) as ScoringCategory[];
export const isScoringCategory = (c: string): c is ScoringCategory => Object.hasOwn(BFCL_V4_ENTRY_COUNTS, c);

/** One evaluated category: accuracy = correct / total, as upstream records it. */
export interface CategoryResult {
  accuracy: number;
  totalCount: number;
}

/** A score as upstream carries it: the accuracy used in further means, and what is displayed. */
export interface Score {
  accuracy: number;
  totalCount: number;
  display: number | "N/A";
}

function categoryScore(results: Partial<Record<ScoringCategory, CategoryResult>>, counts: Record<ScoringCategory, number>, c: ScoringCategory): Score {
  const r = results[c];
  if (r) return { accuracy: r.accuracy, totalCount: r.totalCount, display: r.accuracy };
  return { accuracy: 0, totalCount: counts[c], display: "N/A" };
}

function weighted(list: Score[], displayNa = true): Score {
  let totalCount = 0;
  let total = 0;
  let hasNa = false;
  for (const s of list) {
    if (s.display === "N/A") hasNa = true;
    totalCount += s.totalCount;
    total += s.accuracy * s.totalCount;
  }
  const accuracy = total / totalCount;
  return { accuracy, totalCount, display: hasNa && displayNa ? "N/A" : accuracy };
}

function unweighted(list: Score[], displayNa = true): Score {
  let totalCount = 0;
  let total = 0;
  let hasNa = false;
  for (const s of list) {
    if (s.display === "N/A") hasNa = true;
    totalCount += s.totalCount;
    total += s.accuracy;
  }
  const accuracy = total / list.length;
  return { accuracy, totalCount, display: hasNa && displayNa ? "N/A" : accuracy };
}

function percentageWeighted(list: Score[], weights: number[], displayNa = true): Score {
  const weightSum = weights.reduce((a, b) => a + b, 0);
  if (weightSum === 0) throw new Error("Sum of weights must be greater than 0");
  const norm = weights.map((w) => w / weightSum);
  let totalCount = 0;
  let total = 0;
  let hasNa = false;
  list.forEach((s, i) => {
    if (s.display === "N/A") hasNa = true;
    totalCount += s.totalCount;
    total += s.accuracy * norm[i];
  });
  return { accuracy: total, totalCount, display: hasNa && displayNa ? "N/A" : total };
}

export interface BfclSummary {
  nonLive: {
    overall: Score;
    astSummary: Score;
    simple: Score;
    pythonSimple: Score;
    javaSimple: Score;
    javascriptSimple: Score;
    multiple: Score;
    parallel: Score;
    parallelMultiple: Score;
    irrelevance: Score;
  };
  live: { overall: Score; astSummary: Score; simple: Score; multiple: Score; parallel: Score; parallelMultiple: Score; irrelevance: Score; relevance: Score };
  multiTurn: { overall: Score; base: Score; missFunc: Score; missParam: Score; longContext: Score };
  agentic: {
    overall: Score;
    webSearch: Score;
    webSearchBase: Score;
    webSearchNoSnippet: Score;
    memory: Score;
    memoryKv: Score;
    memoryVector: Score;
    memoryRecSum: Score;
  };
  /** Upstream's total Irrelevance Detection (non-live and live). */
  irrelevance: Score;
  /** Upstream's Relevance Detection (live_relevance). */
  relevance: Score;
  /** Upstream's Overall Acc: weights 10/10/10/30/40 over Non-live, Live, Irrelevance, Multi-turn, Agentic. */
  overall: Score;
}

export const OVERALL_WEIGHTS = [10, 10, 10, 30, 40] as const;

/** The leaderboard summary of one model from its evaluated categories. */
export function aggregateBfcl(
  results: Partial<Record<ScoringCategory, CategoryResult>>,
  entryCounts: Record<ScoringCategory, number> = BFCL_V4_ENTRY_COUNTS,
): BfclSummary {
  const get = (c: ScoringCategory) => categoryScore(results, entryCounts, c);

  const pythonSimple = get("simple_python");
  const multiple = get("multiple");
  const parallel = get("parallel");
  const parallelMultiple = get("parallel_multiple");
  const javaSimple = get("simple_java");
  const javascriptSimple = get("simple_javascript");
  const irrelevanceNonLive = get("irrelevance");
  const simple = unweighted([pythonSimple, javaSimple, javascriptSimple]);
  const nonLiveParts = [simple, multiple, parallel, parallelMultiple];
  const nonLive = {
    overall: unweighted(nonLiveParts, false),
    astSummary: unweighted(nonLiveParts),
    simple,
    pythonSimple,
    javaSimple,
    javascriptSimple,
    multiple,
    parallel,
    parallelMultiple,
    irrelevance: irrelevanceNonLive,
  };

  const liveParts = [get("live_simple"), get("live_multiple"), get("live_parallel"), get("live_parallel_multiple")];
  const irrelevanceLive = get("live_irrelevance");
  const relevance = get("live_relevance");
  const live = {
    overall: weighted(liveParts, false),
    astSummary: weighted(liveParts),
    simple: liveParts[0],
    multiple: liveParts[1],
    parallel: liveParts[2],
    parallelMultiple: liveParts[3],
    irrelevance: irrelevanceLive,
    relevance,
  };

  const mt = [get("multi_turn_base"), get("multi_turn_miss_func"), get("multi_turn_miss_param"), get("multi_turn_long_context")];
  const multiTurn = { overall: unweighted(mt, false), base: mt[0], missFunc: mt[1], missParam: mt[2], longContext: mt[3] };

  const webSearchBase = get("web_search_base");
  const webSearchNoSnippet = get("web_search_no_snippet");
  const webSearch = unweighted([webSearchBase, webSearchNoSnippet]);
  const memoryKv = get("memory_kv");
  const memoryVector = get("memory_vector");
  const memoryRecSum = get("memory_rec_sum");
  const memory = unweighted([memoryKv, memoryVector, memoryRecSum]);
  const agentic = {
    overall: unweighted([webSearch, memory], false),
    webSearch,
    webSearchBase,
    webSearchNoSnippet,
    memory,
    memoryKv,
    memoryVector,
    memoryRecSum,
  };

  const irrelevance = unweighted([irrelevanceNonLive, irrelevanceLive]);
  const overall = percentageWeighted([nonLive.overall, live.overall, irrelevance, multiTurn.overall, agentic.overall], [...OVERALL_WEIGHTS], false);

  return { nonLive, live, multiTurn, agentic, irrelevance, relevance, overall };
}

/** Upstream's CSV cell: "N/A", or the accuracy as a percentage with two decimals (Python's `{:.2f}%`). */
export function formatPercent(display: number | "N/A"): string {
  if (display === "N/A") return "N/A";
  return pyFixed2(display * 100) + "%";
}

/** Python's `format(x, ".2f")`: rounded from the double's exact value, exact ties to even. */
export function pyFixed2(x: number): string {
  // JS toFixed also rounds the exact value but takes the larger candidate on an exact tie. A tie at the
  // hundredths means x·100 ends in exactly .5, i.e. x is an odd multiple of 1/8 (x·8 is exact).
  const eighths = x * 8;
  if (Number.isInteger(eighths) && Math.abs(eighths) % 2 === 1) {
    const hundredths = x * 100;
    const lower = Math.floor(hundredths);
    return ((lower % 2 === 0 ? lower : lower + 1) / 100).toFixed(2);
  }
  return x.toFixed(2);
}
