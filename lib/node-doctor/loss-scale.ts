/**
 * The doctor's loss-scale check: the reduction the run's loss is built on (lib/clients/tinker-reduction.ts,
 * from a reading of each server's source) measured on the node itself, before a run relies on it.
 *
 * With `forward` only (no gradient, no weight change) on a fresh training model:
 * 1. two known datums (different lengths) with zero advantages: the server's per-token logprobs;
 * 2. the same datums with those logprobs as the sampling logprobs, so every importance ratio is 1 and the
 *    token loss of `importance_sampling` is exactly −A: the reported loss must be the modelled
 *    reduction of the known advantages (token-sum: −Σ A), whatever the model;
 * 3. the same datums in two requests, the metrics merged as the client merges chunks: the value must
 *    not change (a server that averages per request would be off by the chunk count).
 * A mismatch names the expected and the reported value and which reduction the reported one fits.
 */
import { mergeChunkMetrics, type Datum, type ForwardBackwardOutput, type TinkerClient } from "../clients/tinker-client";
import type { ResolvedProfile } from "../clients/tinker-profile";
import { serverReduction } from "../clients/tinker-reduction";

/** Advantages on the last targets of each datum: 3 × 1.0 on the first (8 targets), 5 × 0.5 on the second (12). */
export const LOSS_SCALE_DATUMS = [
  { targets: 8, advantaged: 3, advantage: 1 },
  { targets: 12, advantaged: 5, advantage: 0.5 },
] as const;
const TOKENS_NEEDED = Math.max(...LOSS_SCALE_DATUMS.map((d) => d.targets)) + 1;

const RELATIVE_TOLERANCE = 2e-3;
const ABSOLUTE_TOLERANCE = 1e-4;
const close = (a: number, b: number) => Math.abs(a - b) <= ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * Math.abs(b);
const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(4));

export interface LossScaleResult {
  status: "ok" | "failed" | "skipped";
  reason: string;
  /**
   * True when nothing could be measured because the server would not create a training model now
   * (e.g. every adapter slot of a SkyRL server in use by a running job): reported, but it blocks no
   * launch — a node busy training is not a node that reduces wrongly.
   */
  informational?: boolean;
}

interface Probe {
  advantages: number[][];
  weights: number[][];
}

function probe(): Probe {
  const advantages = LOSS_SCALE_DATUMS.map((d) => Array.from({ length: d.targets }, (_, i) => (i >= d.targets - d.advantaged ? d.advantage : 0)));
  // The response mask as weights (what a per-datum-mean server divides by; token-sum servers are sent none, as in a run).
  const weights = advantages.map((row) => row.map((a) => (a !== 0 ? 1 : 0)));
  return { advantages, weights };
}

/** What a server reports for token losses −A under each reduction a server might apply. */
export function candidateLosses(p: Probe): Array<{ name: string; value: number }> {
  const sums = p.advantages.map((row) => -row.reduce((s, a) => s + a, 0));
  const masked = p.weights.map((row) => row.reduce((s, w) => s + w, 0));
  const targets = p.advantages.map((row) => row.length);
  const total = sums.reduce((s, x) => s + x, 0);
  const B = sums.length;
  return [
    { name: "token-sum", value: total },
    { name: "per-datum-mean", value: sums.reduce((s, x, k) => s + x / masked[k]!, 0) / B },
    { name: "sum divided by the datums in the request (a per-request mean)", value: total / B },
    { name: "mean over the advantaged tokens", value: total / masked.reduce((s, x) => s + x, 0) },
    { name: "mean over every target token", value: total / targets.reduce((s, x) => s + x, 0) },
  ];
}

function datum(tokens: readonly number[], n: number, advantages: number[], logprobs: number[], weights: number[] | null): Datum {
  const f32 = (data: number[]) => ({ data, dtype: "float32" as const, shape: [data.length] });
  return {
    model_input: { chunks: [{ type: "encoded_text", tokens: tokens.slice(0, n) }] },
    loss_fn_inputs: {
      target_tokens: { data: tokens.slice(1, n + 1), dtype: "int64", shape: [n] },
      logprobs: f32(logprobs),
      advantages: f32(advantages),
      ...(weights ? { weights: f32(weights) } : {}),
    },
  };
}

/** The loss a server reports for a call: its metric, else (SkyRL JAX reports none) null. */
function reportedLoss(out: ForwardBackwardOutput): number | null {
  const m = out.metrics ?? {};
  const v = m["loss:sum"] ?? m["total_loss:sum"];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function perTokenLosses(out: ForwardBackwardOutput, lengths: number[]): number[][] | null {
  const rows = out.loss_fn_outputs.map((o) => o.elementwise_loss?.data as number[] | undefined);
  if (rows.length !== lengths.length || rows.some((r, k) => !r || r.length !== lengths[k])) return null;
  return rows as number[][];
}

/**
 * Runs the check on `model` through `client` (started; its profile detected). `tokens`: a rendered
 * prompt of the model's own tokenizer (at least 13 ids). The training model is unloaded afterwards.
 */
export async function lossScaleCheck(client: TinkerClient, model: string, tokens: readonly number[], profile: ResolvedProfile, loraRank: number): Promise<LossScaleResult> {
  if (tokens.length < TOKENS_NEEDED) return { status: "skipped", reason: `needs a prompt of at least ${TOKENS_NEEDED} tokens (the rendered one has ${tokens.length})` };
  const reduction = serverReduction(profile);
  const p = probe();
  const lengths = LOSS_SCALE_DATUMS.map((d) => d.targets);
  const sendWeights = reduction === "per-datum-mean";
  let training: Awaited<ReturnType<TinkerClient["createModel"]>>;
  try {
    training = await client.createModel(model, { loraRank, seed: 0 });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { status: "skipped", informational: true, reason: `not measured: the server did not create a training model to run forward on (${why}); runs use the reduction modelled for ${profile} (${reduction}) unverified` };
  }
  try {
    // 1. the server's own logprobs of the targets
    const zeros = lengths.map((n) => new Array<number>(n).fill(0));
    const first = await training.forward(
      lengths.map((n, k) => datum(tokens, n, zeros[k]!, zeros[k]!, sendWeights ? p.weights[k]! : null)),
      "importance_sampling",
    );
    const logprobs = first.loss_fn_outputs.map((o) => o.logprobs?.data as number[] | undefined);
    if (logprobs.length !== lengths.length || logprobs.some((l, k) => !l || l.length !== lengths[k] || !l.every(Number.isFinite))) {
      return { status: "failed", reason: `forward returned no per-token logprobs for the ${lengths.length} datums sent (loss_fn_outputs[k].logprobs with one finite value per target token)` };
    }
    // 2. ratio 1 everywhere: token loss −A
    const data = lengths.map((n, k) => datum(tokens, n, p.advantages[k]!, logprobs[k]!, sendWeights ? p.weights[k]! : null));
    const together = await training.forward(data, "importance_sampling");
    // 3. the same datums over two requests, merged as the client merges chunks
    const parts = await Promise.all(data.map((d) => training.forward([d], "importance_sampling")));

    const candidates = candidateLosses(p);
    const expected = candidates.find((c) => c.name === reduction)!.value;
    const modelled = `the ${reduction} modelled for server profile ${profile}`;
    const reported = reportedLoss(together);
    if (reported === null) {
      // Nothing to compare but the per-token losses (the worker recomputes the loss from them).
      const rows = perTokenLosses(together, lengths);
      if (!rows) return { status: "failed", reason: "forward reported neither a loss metric (loss:sum / total_loss:sum) nor per-token elementwise_loss: the run's loss could not be known" };
      const tokenExpected = (k: number, i: number) => -p.advantages[k]![i]! * (sendWeights ? p.weights[k]![i]! : 1);
      const off = rows.flatMap((row, k) => row.map((v, i) => ({ k, i, v, e: tokenExpected(k, i) }))).find((x) => !close(x.v, x.e));
      if (off) {
        return {
          status: "failed",
          reason: `per-token loss of datum ${off.k} token ${off.i} is ${fmt(off.v)}, expected ${fmt(off.e)} (importance ratio 1, advantage ${fmt(p.advantages[off.k]![off.i]!)}): the server's token loss is not −ratio·A as modelled, so the run's advantages would be scaled wrongly`,
        };
      }
      return {
        status: "ok",
        reason: `the server reports no loss metric; its per-token losses are −A as modelled for ${profile}, and the ${reduction} the worker applies to them is taken from the server's source (a forward cannot show it)`,
      };
    }
    const split = reportedLoss({ ...together, metrics: mergeChunkMetrics(parts.map((o) => ({ metrics: o.metrics ?? {}, datums: 1 }))) });
    const fits = (v: number) => candidates.find((c) => close(v, c.value))?.name;
    if (!close(reported, expected)) {
      const fit = fits(reported);
      return {
        status: "failed",
        reason:
          `forward of 2 known datums reported loss ${fmt(reported)}, expected ${fmt(expected)} (${modelled}; ratio ${fmt(reported / expected)})` +
          (fit ? `: the server reduces as a ${fit}` : ": it fits no known reduction") +
          ` — the run's loss and gradient would be scaled by ${fmt(reported / expected)}; set the node's tinker.server profile to the server it runs, or report the server's reduction`,
      };
    }
    if (split === null || !close(split, expected)) {
      const fit = split === null ? undefined : fits(split);
      return {
        status: "failed",
        reason:
          `the same 2 datums in two requests reported ${split === null ? "no loss" : fmt(split)} merged as the client merges chunks, against ${fmt(reported)} in one request (expected ${fmt(expected)}, ${modelled})` +
          (fit ? `: split calls reduce as a ${fit}` : "") +
          " — a step split into chunks would be off by the chunk count",
      };
    }
    return {
      status: "ok",
      reason: `forward of 2 known datums (importance ratio 1, advantages 3 × 1 and 5 × 0.5): reported ${fmt(reported)}, expected ${fmt(expected)} (${modelled}); the same in two requests: ${fmt(split)}`,
    };
  } finally {
    await training.unload().catch(() => undefined);
  }
}
