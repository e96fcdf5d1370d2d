/**
 * FinMCP-Bench's evaluator (upstream's eval/evaluation.py). The pure scorer lives in lib/finmcp/score.ts because the
 * run page and the reports compute its per-group blocks from the stored per-sample counts too (the server may not
 * import worker/); this module is the benchmark's scoring entry point for the environment and the CLI.
 */
export * from "../../../lib/finmcp/score";
