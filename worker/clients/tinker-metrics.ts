/** What a forward_backward and an optim_step report, under one set of names on every server. */
import type { Datum, ForwardBackwardOutput } from "../../lib/clients/tinker-client";
import type { ServerLossSemantics } from "./loss-semantics";

/**
 * The server's reply → run metrics. `loss` is the step's objective as configured: the node's
 * `loss:sum` (the aggregation weights are in the advantages), SkyRL-Train's `total_loss:sum`, or —
 * SkyRL JAX reports no metrics — recomputed from the per-token `elementwise_loss` under that server's
 * reduction; absent when nothing says it (never NaN). `pg_loss`, `kl_loss`, `entropy_loss` are
 * verl's aggregated parts where the server reports them; the rest are means over the trained tokens.
 */
export function summarise(out: ForwardBackwardOutput, sent: Datum[], sem: ServerLossSemantics, responseTokens: number): Record<string, number> {
  const m = out.metrics ?? {};
  const result: Record<string, number> = { tokens: responseTokens };
  const loss = m["loss:sum"] ?? m["total_loss:sum"] ?? lossFromElementwise(out, sent, sem);
  if (loss !== undefined && Number.isFinite(loss)) result.loss = loss;
  const pg = m["pg_loss:sum"] ?? (sem.profile === "tinker" || sem.profile === "skyrl-jax" ? result.loss : undefined);
  if (pg !== undefined) result.pg_loss = pg;
  if ("kl_loss:sum" in m) result.kl_loss = m["kl_loss:sum"];
  if ("entropy_loss:sum" in m && sem.profile === "envace-embedded") result.entropy_loss = m["entropy_loss:sum"];
  const tokens = m["tokens:sum"];
  const mean = (k: string) => (k in m && tokens !== undefined && tokens > 0 ? m[k] / tokens : undefined);
  const extra = {
    clip_frac: mean("clipped:sum"),
    dual_clip_frac: mean("dual_clipped:sum"),
    ratio_mean: mean("ratio:sum"),
    kl: mean("kl:sum"),
    entropy: mean("entropy:sum"),
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) result[k] = v;
  return result;
}

/** Σ of the per-token losses a server returns, reduced as the server reduces them (undefined when absent). */
function lossFromElementwise(out: ForwardBackwardOutput, sent: Datum[], sem: ServerLossSemantics): number | undefined {
  const outputs = out.loss_fn_outputs ?? [];
  if (outputs.length !== sent.length || outputs.some((o) => !Array.isArray(o?.elementwise_loss?.data))) return undefined;
  let total = 0;
  outputs.forEach((o, k) => {
    const s = o.elementwise_loss.data.reduce((a, b) => a + b, 0);
    if (!sem.perDatumMean) total += s;
    else {
      const weights = sent[k].loss_fn_inputs.weights?.data ?? [];
      let W = 0;
      for (let i = 0; i < weights.length; i++) W += weights[i];
      total += s / Math.max(W, 1e-9) / sent.length;
    }
  });
  return total;
}

/** optim_step metrics under one set of names on every server (SkyRL prefixes its own with "skyrl.ai/"). */
export function optimMetrics(m: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(m)) if (Number.isFinite(v)) out[k.replace(/^skyrl\.ai\//, "").replace(/:[a-z_]+$/, "")] = v;
  return out;
}
