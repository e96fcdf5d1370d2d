/**
 * npm run -s loss:eval -- --cases FILE
 * FILE: a JSON array of {id, logprobs, old_logprobs, ref_logprobs, entropy, advantages, mask (each
 * an array of per-token arrays, one per sequence), clip_low, clip_high, clip_c (null = no dual
 * clip), use_kl, kl_coef, kl_type, entropy_coef, loss_agg}. Prints one JSON line per case:
 * {id, pg_loss, kl_loss, entropy_loss, loss}, computed by the function the embedded node trains with
 * (worker/node/loss-eval.ts). Exits 1 with a message naming the case and field on bad input.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { evaluateLossCase, parseLossCases } from "../worker/node/loss-eval";

// A reader that stops early (`| head`) is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

try {
  const { values } = parseArgs({ args: process.argv.slice(2).filter((a) => a !== "--"), options: { cases: { type: "string" } }, strict: true });
  if (!values.cases) throw new Error("--cases FILE is required");
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(values.cases, "utf8"));
  } catch (err) {
    throw new Error(`${values.cases}: ${(err as Error).message}`);
  }
  for (const c of parseLossCases(json)) process.stdout.write(JSON.stringify(evaluateLossCase(c)) + "\n");
} catch (err) {
  process.stderr.write(`loss:eval: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
