/**
 * Upstream's leaderboard tables (`data_non_live.csv`, `data_live.csv`, `data_multi_turn.csv`,
 * `data_agentic.csv`, `data_overall.csv`) for one model, cell for cell: the rows `generate_leaderboard_csv`
 * builds and the CSV text `write_score_csv_file` writes (rank, percentages with two decimals, "N/A").
 * Cost and latency are not measured by this product and are "N/A", as upstream shows them without data;
 * format-sensitivity statistics are "N/A" (that category is not scored).
 */
import { formatPercent, type BfclSummary, type Score } from "../../../../lib/bfcl/aggregate";

export type LeaderboardFile = "non_live" | "live" | "multi_turn" | "agentic" | "overall";
/** A cell: a number (an accuracy, shown as a percentage) or text. */
export type Cell = number | string;

export const LEADERBOARD_HEADERS: Record<LeaderboardFile, string[]> = {
  non_live: ["Rank", "Model", "Non-Live Overall Acc", "AST Summary", "Simple AST", "Python Simple AST", "Java Simple AST", "JavaScript Simple AST", "Multiple AST", "Parallel AST", "Parallel Multiple AST", "Irrelevance Detection"],
  live: ["Rank", "Model", "Live Overall Acc", "AST Summary", "Python Simple AST", "Python Multiple AST", "Python Parallel AST", "Python Parallel Multiple AST", "Irrelevance Detection", "Relevance Detection"],
  multi_turn: ["Rank", "Model", "Multi Turn Overall Acc", "Base", "Miss Func", "Miss Param", "Long Context"],
  agentic: ["Rank", "Model", "Agentic Overall Acc", "Web Search Summary", "Web Search Base", "Web Search No Snippet", "Memory Summary", "Memory KV", "Memory Vector", "Memory Recursive Summarization"],
  overall: [
    "Rank", "Overall Acc", "Model", "Model Link", "Total Cost ($)", "Latency Mean (s)", "Latency Standard Deviation (s)", "Latency 95th Percentile (s)",
    "Non-Live AST Acc", "Non-Live Simple AST", "Non-Live Multiple AST", "Non-Live Parallel AST", "Non-Live Parallel Multiple AST",
    "Live Acc", "Live Simple AST", "Live Multiple AST", "Live Parallel AST", "Live Parallel Multiple AST",
    "Multi Turn Acc", "Multi Turn Base", "Multi Turn Miss Func", "Multi Turn Miss Param", "Multi Turn Long Context",
    "Web Search Acc", "Web Search Base", "Web Search No Snippet", "Memory Acc", "Memory KV", "Memory Vector", "Memory Recursive Summarization",
    "Relevance Detection", "Irrelevance Detection", "Format Sensitivity Max Delta", "Format Sensitivity Standard Deviation", "Organization", "License",
  ],
};

export interface ModelInfo {
  displayName: string;
  url: string;
  org: string;
  license: string;
}

const d = (s: Score): Cell => s.display;

/** The unformatted rows upstream builds (rank "N/A" until sorted). */
export function leaderboardRows(s: BfclSummary, model: ModelInfo): Record<LeaderboardFile, Cell[]> {
  const { nonLive, live, multiTurn, agentic } = s;
  return {
    non_live: ["N/A", model.displayName, d(nonLive.overall), d(nonLive.astSummary), d(nonLive.simple), d(nonLive.pythonSimple), d(nonLive.javaSimple), d(nonLive.javascriptSimple), d(nonLive.multiple), d(nonLive.parallel), d(nonLive.parallelMultiple), d(nonLive.irrelevance)],
    live: ["N/A", model.displayName, d(live.overall), d(live.astSummary), d(live.simple), d(live.multiple), d(live.parallel), d(live.parallelMultiple), d(live.irrelevance), d(live.relevance)],
    multi_turn: ["N/A", model.displayName, d(multiTurn.overall), d(multiTurn.base), d(multiTurn.missFunc), d(multiTurn.missParam), d(multiTurn.longContext)],
    agentic: ["N/A", model.displayName, d(agentic.overall), d(agentic.webSearch), d(agentic.webSearchBase), d(agentic.webSearchNoSnippet), d(agentic.memory), d(agentic.memoryKv), d(agentic.memoryVector), d(agentic.memoryRecSum)],
    overall: [
      "N/A", d(s.overall), model.displayName, model.url, "N/A", "N/A", "N/A", "N/A",
      d(nonLive.astSummary), d(nonLive.simple), d(nonLive.multiple), d(nonLive.parallel), d(nonLive.parallelMultiple),
      d(live.overall), d(live.simple), d(live.multiple), d(live.parallel), d(live.parallelMultiple),
      d(multiTurn.overall), d(multiTurn.base), d(multiTurn.missFunc), d(multiTurn.missParam), d(multiTurn.longContext),
      d(agentic.webSearch), d(agentic.webSearchBase), d(agentic.webSearchNoSnippet), d(agentic.memory), d(agentic.memoryKv), d(agentic.memoryVector), d(agentic.memoryRecSum),
      d(s.relevance), d(s.irrelevance), "N/A", "N/A", model.org, model.license,
    ],
  };
}

/** `write_score_csv_file` for a one-model table: rank 1, numbers as percentages, no trailing newline. */
export function leaderboardCsv(rows: Record<LeaderboardFile, Cell[]>): Record<LeaderboardFile, string> {
  const out = {} as Record<LeaderboardFile, string>;
  for (const file of Object.keys(rows) as LeaderboardFile[]) {
    const cells = rows[file].map((c, i) => (i === 0 ? "1" : typeof c === "number" ? formatPercent(c) : c));
    out[file] = LEADERBOARD_HEADERS[file].join(",") + "\n" + cells.join(",");
  }
  return out;
}
