/**
 * `npm run -s loss:eval -- --cases FILE`: the loss the embedded node trains with, on cases given as
 * verl-style per-sequence arrays, so it can be checked against verl (volcengine/verl
 * core_algos.py) number by number.
 *
 * Each case goes the way a training step goes: (mask, loss_agg) → per-token aggregation weights with
 * the client's function (worker/clients/loss-semantics.ts), advantages multiplied by them, then the
 * node's per-token loss (loss.ts, here on float64 numbers) summed. Prints one JSON line per case:
 * {id, pg_loss, kl_loss, entropy_loss, loss} with loss = pg_loss − entropy_coef·entropy_loss
 * (+ kl_coef·kl_loss when use_kl). kl_loss / entropy_loss are null when the case gives no
 * ref_logprobs / entropy.
 */
import { z } from "zod";
import { klTypes, lossAggModes } from "../../contracts/run-config";
import { aggregationWeights } from "../clients/loss-semantics";
import { type KlType, numberOps, tokenLoss } from "./loss";

const perSequence = z.array(z.array(z.number().finite()));

/** verl's aliases for its KL estimators (kl_penalty accepts both spellings). */
const klTypeAliases: Record<string, KlType> = { kl: "k1", mse: "k2", k3: "low_var_kl" };

export const lossCaseSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]),
    logprobs: perSequence,
    old_logprobs: perSequence,
    ref_logprobs: perSequence.nullable().optional(),
    entropy: perSequence.nullable().optional(),
    advantages: perSequence,
    mask: z.array(z.array(z.union([z.literal(0), z.literal(1)], { errorMap: () => ({ message: "mask values must be 0 or 1" }) }))),
    /** ε below 1 (verl clip_ratio_low): the ratio is clipped at 1 − clip_low. */
    clip_low: z.number().min(0).lt(1),
    /** ε above 1 (verl clip_ratio_high): the ratio is clipped at 1 + clip_high. */
    clip_high: z.number().min(0),
    /** verl clip_ratio_c (> 1); null = no dual clip. */
    clip_c: z.number().gt(1, "clip_c must be greater than 1 (verl asserts it), or null for no dual clip").nullable(),
    use_kl: z.boolean(),
    kl_coef: z.number().min(0),
    kl_type: z.preprocess((v) => (typeof v === "string" && v in klTypeAliases ? klTypeAliases[v] : v), z.enum(klTypes)),
    entropy_coef: z.number().min(0),
    loss_agg: z.enum(lossAggModes),
  })
  .strict();
export type LossCase = z.infer<typeof lossCaseSchema>;

export interface LossCaseResult {
  id: string | number;
  pg_loss: number;
  kl_loss: number | null;
  entropy_loss: number | null;
  loss: number;
}

/** Cases from parsed JSON; every error names the case (id and index) and the field. */
export function parseLossCases(input: unknown): LossCase[] {
  if (!Array.isArray(input)) throw new Error("the cases file must hold a JSON array of cases");
  return input.map((raw, index) => {
    const label = `case ${index}${raw && typeof raw === "object" && "id" in raw ? ` (id ${JSON.stringify((raw as { id: unknown }).id)})` : ""}`;
    const parsed = lossCaseSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${label}: ${issue.path.join(".") || "(case)"}: ${issue.message}`);
    }
    const c = parsed.data;
    const shapeOf = (field: keyof LossCase) => c[field] as number[][];
    const fields: Array<keyof LossCase> = ["old_logprobs", "advantages", "mask"];
    if (c.ref_logprobs) fields.push("ref_logprobs");
    if (c.entropy) fields.push("entropy");
    for (const field of fields) {
      const rows = shapeOf(field);
      if (rows.length !== c.logprobs.length) throw new Error(`${label}: ${field} has ${rows.length} sequences, logprobs has ${c.logprobs.length}`);
      rows.forEach((row, i) => {
        if (row.length !== c.logprobs[i].length) throw new Error(`${label}: ${field}[${i}] has ${row.length} values, logprobs[${i}] has ${c.logprobs[i].length}`);
      });
    }
    if (c.use_kl && !c.ref_logprobs) throw new Error(`${label}: ref_logprobs: required when use_kl is true`);
    if (c.entropy_coef !== 0 && !c.entropy) throw new Error(`${label}: entropy: required when entropy_coef is not 0`);
    return c;
  });
}

/** One case, through the same functions a training step uses. */
export function evaluateLossCase(c: LossCase): LossCaseResult {
  const weights = aggregationWeights(c.mask, c.loss_agg);
  const settings = {
    kind: "ppo" as const,
    clipLowThreshold: 1 - c.clip_low,
    clipHighThreshold: 1 + c.clip_high,
    dualClip: c.clip_c,
    klCoef: c.use_kl ? c.kl_coef : 0,
    klType: c.kl_type,
    entropyCoef: c.entropy_coef,
  };
  let pg = 0;
  let kl = 0;
  let entropy = 0;
  let loss = 0;
  c.logprobs.forEach((row, i) =>
    row.forEach((logprob, j) => {
      const w = weights[i][j];
      if (w === 0) return; // masked out: contributes exactly nothing, whatever its values
      const t = tokenLoss(
        numberOps,
        {
          logprobs: logprob,
          oldLogprobs: c.old_logprobs[i][j],
          advantages: c.advantages[i][j] * w,
          weights: w,
          refLogprobs: c.ref_logprobs?.[i][j],
          entropy: c.entropy?.[i][j],
        },
        settings,
      );
      pg += t.pg;
      kl += t.kl ?? 0;
      entropy += t.entropy ?? 0;
      loss += t.total;
    }),
  );
  return { id: c.id, pg_loss: pg, kl_loss: c.ref_logprobs ? kl : null, entropy_loss: c.entropy ? entropy : null, loss };
}
