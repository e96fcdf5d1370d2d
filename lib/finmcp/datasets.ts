/**
 * FinMCP-Bench as a run names it: `data.dataset = "finmcp:<file>"` reads `$ENVACE_DATA_DIR/<finmcp.folder>/<file>.json`
 * (upstream's file names: benchmark_final, benchmark_stss, benchmark_stms, benchmark_multi_turn; the HF copy's
 * benchmark_single_tool and benchmark_multi_turn), and `finmcp.environment` says what answers the tools:
 * `mcp:<server>` (a registered MCP server: upstream's protocol, its tool schemas come with the server) or `replay`
 * (each call answered with the recorded output of the matching gold call — not upstream's protocol, labelled as a
 * replay wherever its numbers appear). The data is CC-BY-NC-SA-4.0: the product never ships it. Pure; shared by the
 * run-config schema, the worker's environment, the launch check and the reports.
 */
export const FINMCP_DATASET_PREFIX = "finmcp:";
export const FINMCP_DEFAULT_FOLDER = "finmcp";
export const FINMCP_DEFAULT_SCHEMA = "tool_schema.json";
/** upstream's infer_config.yaml: max_tool_num. */
export const FINMCP_MAX_TOOL_CALLS = 20;
/** upstream's infer_config.yaml: max_new_tokens (its `max_tokens`). */
export const FINMCP_MAX_TOKENS = 4096;
/** The pinned upstream version of the scorer and the inference loop. */
export const FINMCP_UPSTREAM = "aliyun/qwen-dianjin @ fd9b511 (DianJin-TIR)";
/** The folder of the synthetic stand-in samples (shared data; not FinMCP-Bench). */
export const FINMCP_SYNTHETIC_FOLDER = "finmcp-synthetic";

export const FINMCP_FILE = /^[A-Za-z0-9_.-]{1,100}$/;

export interface FinmcpDataset {
  ref: string;
  /** The sample file's stem (`benchmark_final`). */
  file: string;
}

export function parseFinmcpDataset(ref: string): { ok: true; dataset: FinmcpDataset } | { ok: false; message: string } {
  if (!ref.startsWith(FINMCP_DATASET_PREFIX)) return { ok: false, message: `${ref} is not a FinMCP-Bench dataset (finmcp:<file>)` };
  const file = ref.slice(FINMCP_DATASET_PREFIX.length).replace(/\.json$/, "");
  if (!FINMCP_FILE.test(file) || file.startsWith(".")) {
    return { ok: false, message: `finmcp:<file> names a sample file of the data folder by its stem (e.g. finmcp:benchmark_final), not "${file}"` };
  }
  return { ok: true, dataset: { ref, file } };
}

/** `finmcp.environment`: a registered MCP server or the replay of the gold outputs. */
export type FinmcpToolSource = { kind: "mcp"; server: string } | { kind: "replay" };

export const FINMCP_ENVIRONMENT = /^(replay|mcp:[a-z0-9][a-z0-9_-]{0,62})$/;

export function parseFinmcpEnvironment(value: string): FinmcpToolSource | null {
  if (value === "replay") return { kind: "replay" };
  const m = /^mcp:([a-z0-9][a-z0-9_-]{0,62})$/.exec(value);
  return m ? { kind: "mcp", server: m[1]! } : null;
}

/** How a FinMCP run's numbers are labelled wherever they appear. */
export function finmcpModeLabel(source: FinmcpToolSource): string {
  return source.kind === "replay" ? "replay of the recorded gold outputs (not upstream's live-server protocol)" : `live MCP server ${source.server} (upstream's protocol)`;
}

/** Table 2's columns: the paper's names for upstream's recall, precision and F1. */
export const FINMCP_COLUMNS = [
  { key: "TR", label: "TR", metric: "Recall" },
  { key: "TP", label: "TP", metric: "Precision" },
  { key: "TF1", label: "TF1", metric: "F1" },
] as const;
export type FinmcpColumn = (typeof FINMCP_COLUMNS)[number]["key"];

/** The metric points a FinMCP evaluation stores (worker/envs/finmcp/environment.ts) and the report reads. */
export const FINMCP_METRIC_PREFIX = "val/finmcp/";
/** Upstream's block keys, in its order. */
export const FINMCP_BLOCK_KEYS = ["macro_Precision", "macro_Recall", "macro_F1", "micro_Precision", "micro_Recall", "micro_F1", "N", "consist_mean"] as const;
export type FinmcpBlockKey = (typeof FINMCP_BLOCK_KEYS)[number];
export const FINMCP_GROUPS = ["scenario", "difficulty", "task"] as const;
export type FinmcpGroup = (typeof FINMCP_GROUPS)[number];
