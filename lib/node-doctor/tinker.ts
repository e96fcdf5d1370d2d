/**
 * The doctor's Tinker-compatible checks, through the same client the worker trains with
 * (lib/clients/tinker-client/) and the renderer the worker would render with (lib/renderers):
 *
 * - server: client/config, get_server_capabilities and a session (with its heartbeat), every reply
 *   validated;
 * - profile: the one profile detection (lib/clients/tinker-profile.ts), and a node setting that
 *   contradicts the server;
 * - model: the model is among the served ones (and its advertised context window);
 * - lora-rank: the largest LoRA rank the node takes (the launch gate compares policy.loraRank);
 * - sampling: a sampling session on the base model and one asample round trip with the renderer's
 *   stop tokens — tokens and per-token logprobs back;
 * - tokenizer: the sampled ids are inside the renderer's vocabulary, decode to text, and — where the
 *   server returns prompt log-probabilities — the model finds the rendered prompt plausible. A node
 *   whose model tokenises differently fails here, naming the renderer and the setting to change;
 * - loss-scale: the server's reduction of the policy loss, measured with `forward` on known datums,
 *   in one request and split over two (./loss-scale.ts).
 *
 * Nothing is trained: the loss-scale check creates one training model (the smallest LoRA rank; one
 * adapter slot on SkyRL while it runs), calls only `forward` on it and unloads it.
 */
import type { NodeSettings } from "../../contracts/node-settings";
import { TinkerClient, type SampleResponse } from "../clients/tinker-client";
import { loraRankLimit } from "../clients/tinker-limits";
import { mulberry32 } from "../random";
import { profileConflict } from "../clients/tinker-profile";
import { type ChatRenderer, type RenderMessage, attributeRenderer, resolveRenderer } from "../renderers";
import { lossScaleCheck } from "./loss-scale";
import type { DoctorCheck, DoctorCheckId, DoctorFacts } from "./report";

export interface TinkerTarget {
  url: string;
  apiKey?: string;
  nodeName: string;
  settings: NodeSettings;
}

export interface TinkerDoctorOptions {
  /** Per HTTP request, and the longest wait for one result (ms). */
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** The known prompt: short, plain English, a one-line answer. */
export const DOCTOR_MESSAGES: RenderMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Say hello in one short sentence." },
];
/** Enough tokens to see text; a short greeting ends well within it. */
export const DOCTOR_MAX_TOKENS = 48;

/**
 * Where the server returns prompt log-probabilities, the rendered prompt is scored twice: as rendered
 * and with its ids shuffled (fixed seed). A model reading ids of its own tokenizer in its own chat
 * format finds the rendered order far more likely (template tokens are near-certain; several nats per
 * token for a pretrained LLM); ids of another tokenizer are noise in either order. Less than this many
 * nats per token between the two is a mismatch. Not applied to the tiny byte format: every byte id is
 * valid there, and the embedded model knows only its shop domain (it scores this prompt about the same
 * either way).
 */
export const MIN_ORDER_GAIN_NATS = 1;

/** Characters a sampled text should not be made of: undecodable bytes and control characters. */
const NOT_TEXT = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/u;

/** Why a decoded sample is not text (null when it reads as text). */
export function notTextReason(text: string): string | null {
  const chars = [...text];
  if (chars.length === 0) return null;
  const bad = chars.filter((c) => NOT_TEXT.test(c)).length;
  if (bad / chars.length <= 0.1) return null;
  return `${bad} of ${chars.length} decoded characters are undecodable bytes or control characters`;
}

const quote = (text: string, max = 80) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export async function tinkerChecks(target: TinkerTarget, model: string | null, o: TinkerDoctorOptions): Promise<{ checks: DoctorCheck[]; facts: Partial<DoctorFacts> }> {
  const checks: DoctorCheck[] = [];
  const facts: Partial<DoctorFacts> = {};
  const add = (check: DoctorCheckId, status: DoctorCheck["status"], reason: string, started?: number) =>
    checks.push({ check, protocol: "tinker", status, reason, neededBy: ["policy"], ...(started !== undefined ? { ms: Date.now() - started } : {}) });
  const skipRest = (ids: DoctorCheckId[], why: string) => ids.forEach((id) => add(id, "skipped", why));
  const node = `node "${target.nodeName}"`;
  const notes: string[] = [];
  const client = new TinkerClient({
    baseUrl: target.url,
    apiKey: target.apiKey,
    nodeName: target.nodeName,
    profile: target.settings.tinker.server,
    wire: target.settings.tinker.wire,
    timeoutMs: o.timeoutMs,
    pollTimeoutMs: o.timeoutMs,
    futureDeadlineMs: o.timeoutMs,
    submitRetryMs: o.timeoutMs,
    maxRetries: 2,
    retryBaseMs: 200,
    fetch: o.fetch,
    log: (m) => notes.push(m),
  });
  try {
    // server
    let started = Date.now();
    try {
      await client.start(["envace-doctor"]);
    } catch (e) {
      add("server", "failed", `the Tinker API did not answer as the protocol defines it: ${errText(e)}`, started);
      skipRest(["profile", "model", "lora-rank", "sampling", "tokenizer", "loss-scale"], "needs a server that answers the Tinker API");
      return { checks, facts };
    }
    const caps = await client.capabilities();
    facts.servedModels = caps.supported_models.map((m) => m.model_name);
    const cfg = client.config;
    const listed = facts.servedModels.slice(0, 6).join(", ") + (facts.servedModels.length > 6 ? `, … (${facts.servedModels.length})` : "");
    add(
      "server",
      "ok",
      `client/config, capabilities and a session answered; serves ${facts.servedModels.length} model(s): ${listed || "none"}; forward_backward chunks ≤ ${cfg.fwdbwd_max_chunk_len} datums / ${(cfg.fwdbwd_max_chunk_bytes_count / 1e6).toFixed(1)} MB${notes.length ? `; the server said: ${notes.join("; ")}` : ""}`,
      started,
    );

    // profile
    const detected = client.detectedProfile;
    facts.profile = detected.profile;
    const conflict = profileConflict(target.settings.tinker.server, client.profileEvidence);
    if (conflict) add("profile", "failed", `${conflict} — the loss would be scaled for the wrong server`);
    else add("profile", "ok", `${detected.profile}: ${detected.basis}${detected.assumed ? " (set tinker.server to skyrl-train if it runs FSDP/Megatron)" : ""}`);

    // model
    if (!model) {
      skipRest(["model", "lora-rank", "sampling", "tokenizer", "loss-scale"], "no model named: name one (the node's model settings, or the doctor's model field) to check sampling and the tokenizer");
      return { checks, facts };
    }
    const entry = caps.supported_models.find((m) => m.model_name === model);
    if (!entry) {
      add("model", "failed", `${node} does not serve "${model}"; it serves: ${listed || "nothing"}`);
      skipRest(["lora-rank", "sampling", "tokenizer", "loss-scale"], `needs a model the node serves`);
      return { checks, facts };
    }
    const modelSettings = target.settings.models[model];
    facts.contextLength = modelSettings?.contextLength ?? entry.max_context_length ?? null;
    add(
      "model",
      "ok",
      `serves "${model}"; context window ${
        modelSettings?.contextLength ? `${modelSettings.contextLength} tokens (node setting)` : entry.max_context_length ? `${entry.max_context_length} tokens (advertised)` : "not advertised (the renderer's is used; set the model's contextLength to be exact)"
      }`,
    );

    // lora-rank
    const limit = loraRankLimit(detected.profile, caps, target.settings.tinker.maxLoraRank);
    facts.loraRankLimit = limit;
    const source =
      target.settings.tinker.maxLoraRank != null
        ? "the node's tinker.maxLoraRank"
        : caps.node?.max_lora_rank !== undefined
          ? "advertised by the server"
          : detected.profile === "skyrl-jax"
            ? "SkyRL JAX's default max_lora_rank; set tinker.maxLoraRank if the server was started with another"
            : "";
    if (detected.profile === "envace-embedded") add("lora-rank", "ok", `the embedded node trains all weights; policy.loraRank does not apply (limit ${limit ?? "none"})`);
    else if (limit === null) add("lora-rank", "ok", "no limit known: the server decides at create_model (set tinker.maxLoraRank to have runs checked before they start)");
    else add("lora-rank", "ok", `largest LoRA rank ${limit} (${source}); runs asking for more are refused at launch`);

    // the renderer (the tokenizer check owns its failure)
    let renderer: ChatRenderer;
    try {
      const resolved = resolveRenderer(model, modelSettings, node);
      renderer = attributeRenderer(resolved.renderer, `${node}, model "${model}"`);
      facts.renderer = renderer.name;
    } catch (e) {
      add("sampling", "skipped", "needs the model's renderer to build a prompt");
      add("tokenizer", "failed", `${errText(e)}`);
      add("loss-scale", "skipped", "needs the model's renderer to build the datums");
      return { checks, facts };
    }
    const prompt = renderer.renderPrompt(DOCTOR_MESSAGES, { addGenerationPrompt: true, ...(renderer.supportsThinking ? { enableThinking: false } : {}) });
    const room = facts.contextLength ? facts.contextLength - prompt.length : DOCTOR_MAX_TOKENS;
    if (room < 1) {
      add("sampling", "failed", `the doctor's ${prompt.length}-token prompt does not fit the model's context window (${facts.contextLength})`);
      add("tokenizer", "skipped", "needs a sample");
      add("loss-scale", "skipped", "needs a working sampling round trip");
      return { checks, facts };
    }

    // sampling
    started = Date.now();
    let res: SampleResponse;
    try {
      const session = await client.createSamplingSession({ baseModel: model });
      res = await session.sample(
        prompt,
        { max_tokens: Math.min(DOCTOR_MAX_TOKENS, room), temperature: 0.6, top_p: 0.95, seed: 0, stop: [...renderer.stopTokens] },
        1,
        undefined,
        { promptLogprobs: true },
      );
    } catch (e) {
      add("sampling", "failed", `sampling session round trip failed: ${errText(e)}`, started);
      add("tokenizer", "skipped", "needs a sample");
      add("loss-scale", "skipped", "needs a working sampling round trip");
      return { checks, facts };
    }
    const seq = res.sequences[0];
    const logprobsOk = seq?.logprobs && seq.logprobs.length === seq.tokens.length && seq.logprobs.every((x) => Number.isFinite(x) && x <= 1e-3);
    if (!seq) {
      add("sampling", "failed", "asample returned no sequence", started);
      add("tokenizer", "skipped", "needs a sample");
      add("loss-scale", "skipped", "needs a working sampling round trip");
      return { checks, facts };
    }
    if (!logprobsOk) {
      add("sampling", "failed", `asample returned ${seq.tokens.length} tokens without one finite log-probability ≤ 0 per token (training needs the sampler's logprobs)`, started);
    } else {
      const stopped = seq.stop_reason === "stop" ? "ended at a stop token" : `did not stop within ${Math.min(DOCTOR_MAX_TOKENS, room)} tokens`;
      add("sampling", "ok", `a sampling session on "${model}" returned ${seq.tokens.length} tokens with per-token logprobs (${stopped}; stop ids sent: ${renderer.stopTokens.join(", ")})`, started);
    }

    // tokenizer
    const outside = seq.tokens.filter((t) => !renderer.isValidToken(t));
    if (outside.length > 0) {
      const shown = outside.slice(0, 5).join(", ") + (outside.length > 5 ? `, … (${outside.length} in all)` : "");
      add(
        "tokenizer",
        "failed",
        `tokenizer mismatch: ${node} returned ids outside the ${renderer.vocabularyName} vocabulary (${shown}; valid ids are 0–${renderer.vocabSize - 1}, renderer "${renderer.name}") — the node's model does not use this renderer's tokenizer; set settings.models["${model}"].renderer (or its tokenizer directory) to the model's own`,
      );
      add("loss-scale", "skipped", "needs the tokenizer check to pass (the datums are the rendered prompt's ids)");
      return { checks, facts };
    }
    let text: string;
    try {
      text = renderer.decode(seq.tokens);
    } catch (e) {
      add("tokenizer", "failed", `the sampled ids do not decode under renderer "${renderer.name}": ${errText(e)}`);
      add("loss-scale", "skipped", "needs the tokenizer check to pass (the datums are the rendered prompt's ids)");
      return { checks, facts };
    }
    const garbled = notTextReason(text);
    if (garbled) {
      add(
        "tokenizer",
        "failed",
        `tokenizer mismatch: the sample decodes to non-text under renderer "${renderer.name}" (${garbled}: ${quote(text)}) — the node's model likely uses another tokenizer; set settings.models["${model}"].renderer or tokenizer`,
      );
      add("loss-scale", "skipped", "needs the tokenizer check to pass (the datums are the rendered prompt's ids)");
      return { checks, facts };
    }
    const real = meanLogprob(res.prompt_logprobs);
    let plausibility = "prompt log-probabilities not returned by this server";
    if (renderer.name === "tiny-gpt") plausibility = "the byte format has no other tokenizer to confuse it with";
    else if (real !== null) {
      // The same ids in a fixed random order, scored by the same model.
      const shuffled = shuffle(prompt, 0x5eed);
      const again = await client
        .createSamplingSession({ baseModel: model })
        .then((s) => s.sample(shuffled, { max_tokens: 1, temperature: 1, seed: 0, stop: [...renderer.stopTokens] }, 1, undefined, { promptLogprobs: true }));
      const noise = meanLogprob(again.prompt_logprobs);
      if (noise !== null) {
        const gain = real - noise;
        if (gain < MIN_ORDER_GAIN_NATS) {
          add(
            "tokenizer",
            "failed",
            `tokenizer mismatch: the node's model finds the prompt rendered by "${renderer.name}" no more likely than the same ids shuffled (mean log-probability ${real.toFixed(2)} vs ${noise.toFixed(2)} per token; a model reading its own tokenizer's ids scores the rendered order several nats higher) — set settings.models["${model}"].renderer or tokenizer to the model's own`,
          );
          add("loss-scale", "skipped", "needs the tokenizer check to pass (the datums are the rendered prompt's ids)");
          return { checks, facts };
        }
        plausibility = `the model scores the rendered prompt ${gain.toFixed(1)} nats/token above the same ids shuffled (${real.toFixed(2)} vs ${noise.toFixed(2)})`;
      }
    }
    add("tokenizer", "ok", `ids inside the ${renderer.vocabularyName} vocabulary (renderer "${renderer.name}"), decoded: ${quote(text)}; ${plausibility}`);

    // loss-scale
    started = Date.now();
    try {
      const r = await lossScaleCheck(client, model, prompt, detected.profile, Math.min(limit ?? 8, 8));
      add("loss-scale", r.status, r.reason, started);
      if (r.informational) checks[checks.length - 1]!.neededBy = [];
    } catch (e) {
      add("loss-scale", "failed", `forward on a training model failed: ${errText(e)}`, started);
    }
    return { checks, facts };
  } catch (e) {
    // Something the steps above did not expect: the first unreported check fails with it, the rest are skipped.
    const done = new Set(checks.map((c) => c.check));
    const left = (["server", "profile", "model", "lora-rank", "sampling", "tokenizer", "loss-scale"] as const).filter((id) => !done.has(id));
    if (left[0]) add(left[0], "failed", errText(e));
    skipRest(left.slice(1), `needs the ${left[0]} check`);
    return { checks, facts };
  } finally {
    client.close();
  }
}

/** Mean of the finite prompt log-probabilities (the first token has none); null with fewer than 8. */
function meanLogprob(values: ReadonlyArray<number | null> | null | undefined): number | null {
  const scored = (values ?? []).filter((x): x is number => typeof x === "number" && Number.isFinite(x));
  return scored.length >= 8 ? scored.reduce((a, b) => a + b, 0) / scored.length : null;
}

/** Fisher–Yates with a fixed seed. */
function shuffle(ids: readonly number[], seed: number): number[] {
  const out = [...ids];
  const rng = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
