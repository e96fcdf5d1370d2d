/** Datums as they are sent: the model input of a token list, the JSON wire form, and the check before anything is posted. */
import { TinkerError } from "./errors";
import type { Datum, LossFn, NumberArray } from "./types";

export const tokensInput = <T extends number[] | Int32Array>(tokens: T) => ({ chunks: [{ type: "encoded_text" as const, tokens }] });

/** JSON-wire form of a datum: typed arrays become plain arrays (JSON.stringify would write objects). */
const plainArray = (a: NumberArray): number[] => (Array.isArray(a) ? a : Array.from(a));
export function datumAsJson(d: Datum): unknown {
  return {
    model_input: { chunks: d.model_input.chunks.map((c) => ({ type: "encoded_text", tokens: plainArray(c.tokens) })) },
    loss_fn_inputs: Object.fromEntries(Object.entries(d.loss_fn_inputs).map(([k, t]) => [k, { ...t, data: plainArray(t.data) }])),
  };
}

/** Loss functions that read the sampler's logprobs and the advantages. */
const POLICY_LOSSES = new Set<LossFn>(["importance_sampling", "ppo", "cispo", "dro"]);

/** Checks a datum before it is sent: SkyRL answers 500 on a missing target_tokens and silently trains zeros on missing logprobs/advantages. */
export function validateDatum(d: Datum, i: number, lossFn: LossFn): void {
  let n = 0;
  for (const c of d.model_input.chunks) n += c.tokens.length;
  if (n === 0) throw new TinkerError(`datum ${i}: model_input is empty`, null, "user", false, "bad_datum", "input");
  if (!d.loss_fn_inputs.target_tokens) throw new TinkerError(`datum ${i}: loss_fn_inputs.target_tokens is required for loss_fn '${lossFn}'`, null, "user", false, "bad_datum", "input");
  if (POLICY_LOSSES.has(lossFn))
    for (const name of ["logprobs", "advantages"])
      if (!d.loss_fn_inputs[name]) throw new TinkerError(`datum ${i}: loss_fn_inputs.${name} is required for loss_fn '${lossFn}'`, null, "user", false, "bad_datum", "input");
  for (const name in d.loss_fn_inputs) {
    const data = d.loss_fn_inputs[name].data;
    if (data.length !== n) throw new TinkerError(`datum ${i}: loss_fn_inputs.${name} has ${data.length} values for ${n} input tokens`, null, "user", false, "bad_datum", "input");
    if (data instanceof Int32Array) continue; // always finite integers
    const bad = firstNonFinite(data);
    if (bad >= 0) throw new TinkerError(`datum ${i}: loss_fn_inputs.${name}[${bad}] is not a finite number`, null, "user", false, "bad_datum", "input");
  }
}

/** Index of the first NaN / ±Infinity, or -1 (x − x is 0 exactly for finite x). */
function firstNonFinite(a: ArrayLike<number>): number {
  for (let k = 0; k < a.length; k++) if (a[k] - a[k] !== 0) return k;
  return -1;
}
