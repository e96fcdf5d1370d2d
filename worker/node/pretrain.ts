/**
 * `npm run node:pretrain` — warm start of the embedded model on the shop domain's gold transcripts.
 *
 * Supervised cross_entropy on the completion tokens only: input = renderPrompt(messages) +
 * completion + <|end|>, targets shifted by one, weight 1/N on completion positions (token mean over
 * the batch) and 0 on the prompt. Both roles (act and rehearse) are in the data, with the prompts
 * exactly as the engine builds them. Seeded and a fixed number of steps, so a run is reproducible.
 *
 * Writes the checkpoint to worker/node/weights/tiny-gpt/ and a README.md beside it.
 * Options: --seed N --rows N --steps N --batch N --lr X --out DIR --eval-rows N --max-minutes X
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { ChatMessage, ToolSchema } from "../engine/io";
import { renderCompletion, renderPrompt } from "../../lib/renderers/tiny-gpt/chat-format";
import { loadCheckpoint, saveCheckpoint } from "./checkpoint";
import { DEFAULT_CONFIG, type GPTConfig, countParams, ensureBackend, initParamValues, makeRng } from "./model";
import { scoreWarmStart } from "./warm-start-check";
import { DEFAULT_LOSS_CONFIG, Trainer, type TrainDatum } from "./train";

export interface Transcript {
  role: "act" | "rehearse";
  messages: ChatMessage[];
  tools?: ToolSchema[];
  completion: string;
}

export interface PretrainOptions {
  seed: number;
  rows: number;
  steps: number;
  batch: number;
  lr: number;
  evalRows: number;
  maxMinutes: number;
  config: GPTConfig;
  /** Checkpoint directory to continue from instead of a fresh initialisation. */
  init?: string;
}

export const DEFAULT_PRETRAIN: PretrainOptions = { seed: 0, rows: 3000, steps: 240, batch: 4, lr: 6e-3, evalRows: 48, maxMinutes: 12, config: DEFAULT_CONFIG };

export interface PretrainResult {
  steps: number;
  finalLoss: number;
  evalLoss: number;
  evalExactMatch: { act: number; rehearse: number; n: number; actParseable: number; rehearseParseable: number };
  trainedTokens: number;
  seconds: number;
  losses: number[];
  stoppedEarly: boolean;
  trainer: Trainer;
}

/** One transcript → a training datum (loss on the completion and its stop token only). */
export function transcriptDatum(t: Transcript, contextLength: number): TrainDatum | null {
  const prompt = renderPrompt(t.messages, t.tools);
  const completion = renderCompletion(t.completion);
  const seq = [...prompt, ...completion];
  if (seq.length - 1 > contextLength) return null;
  return {
    tokens: seq.slice(0, -1),
    targets: seq.slice(1),
    weights: [...new Array<number>(prompt.length - 1).fill(0), ...new Array<number>(completion.length).fill(1)],
  };
}

/** Scales weights so the batch loss is a mean over completion tokens. */
function tokenMean(batch: TrainDatum[]): TrainDatum[] {
  const n = batch.reduce((s, d) => s + d.weights!.reduce((a, b) => a + b, 0), 0);
  return batch.map((d) => ({ ...d, weights: d.weights!.map((w) => w / n) }));
}

function shuffle<T>(xs: T[], rng: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function lrAt(step: number, total: number, peak: number): number {
  const warmup = Math.max(1, Math.round(total * 0.06));
  if (step < warmup) return (peak * (step + 1)) / warmup;
  const progress = (step - warmup) / Math.max(1, total - warmup);
  return peak * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

async function meanLoss(trainer: Trainer, data: TrainDatum[]): Promise<number> {
  let sum = 0;
  for (let i = 0; i < data.length; i += 16) sum += (await trainer.forwardBackward(tokenMean(data.slice(i, i + 16)), "cross_entropy", DEFAULT_LOSS_CONFIG, true)).metrics["loss:sum"] * Math.min(16, data.length - i);
  return sum / data.length;
}

/** Greedy decoding of held-out rows, per role: exact match and parse rates (warm-start-check.ts). */
async function exactMatch(trainer: Trainer, evalSet: Transcript[], cfg: GPTConfig): Promise<PretrainResult["evalExactMatch"]> {
  const params = trainer.snapshot();
  const r = await scoreWarmStart(params, cfg, evalSet);
  for (const t of Object.values(params)) t.dispose();
  return { act: r.act.exactMatch, rehearse: r.rehearse.exactMatch, n: r.act.n + r.rehearse.n, actParseable: r.act.parseable, rehearseParseable: r.rehearse.parseable };
}

export async function pretrain(train: Transcript[], evalSet: Transcript[], o: PretrainOptions, log: (line: string) => void = console.log): Promise<PretrainResult> {
  const cfg = o.config;
  const data = train.map((t) => transcriptDatum(t, cfg.contextLength)).filter((d): d is TrainDatum => d !== null);
  const evalData = evalSet.map((t) => transcriptDatum(t, cfg.contextLength)).filter((d): d is TrainDatum => d !== null);
  if (data.length === 0) throw new Error("no training rows fit the context");
  // Continue from an existing checkpoint (e.g. the committed warm start) or start from a fresh init.
  const initial = o.init ? (await loadCheckpoint(o.init)).weights : initParamValues(cfg, o.seed);
  const trainer = new Trainer(cfg, initial, null);
  const rng = makeRng(o.seed + 1);
  // Length bucketing: shuffle, sort pools of 8 batches by length, cut into batches, shuffle the
  // batches. Rows in a batch then have similar lengths, so little compute goes to padding.
  const epoch = (): TrainDatum[][] => {
    const rows = shuffle(data, rng);
    const batches: TrainDatum[][] = [];
    const pool = o.batch * 8;
    for (let i = 0; i + o.batch <= rows.length; i += pool) {
      const sorted = rows.slice(i, i + pool).sort((a, b) => a.tokens.length - b.tokens.length);
      for (let j = 0; j + o.batch <= sorted.length; j += o.batch) batches.push(sorted.slice(j, j + o.batch));
    }
    return shuffle(batches, rng);
  };
  let order = epoch();
  let cursor = 0;
  const losses: number[] = [];
  let trainedTokens = 0;
  const t0 = performance.now();
  let stoppedEarly = false;
  let step = 0;
  for (; step < o.steps; step++) {
    if ((performance.now() - t0) / 60_000 > o.maxMinutes) {
      stoppedEarly = true;
      log(`stopping early after ${step} steps: over ${o.maxMinutes} minutes`);
      break;
    }
    if (cursor >= order.length) {
      order = epoch();
      cursor = 0;
    }
    const batch = order[cursor++];
    const r = await trainer.forwardBackward(tokenMean(batch), "cross_entropy", DEFAULT_LOSS_CONFIG);
    const lr = lrAt(step, o.steps, o.lr);
    trainer.optimStep({ learningRate: lr, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1 });
    losses.push(r.metrics["loss:sum"]);
    trainedTokens += batch.reduce((n, d) => n + d.tokens.length, 0);
    if (step % 10 === 0 || step === o.steps - 1) {
      const secs = (performance.now() - t0) / 1000;
      log(`step ${step + 1}/${o.steps} loss ${r.metrics["loss:sum"].toFixed(4)} lr ${lr.toExponential(2)} ${(trainedTokens / secs).toFixed(0)} tok/s ${secs.toFixed(0)} s`);
    }
  }
  const tail = losses.slice(-10);
  const finalLoss = tail.reduce((a, b) => a + b, 0) / Math.max(1, tail.length);
  const evalLoss = evalData.length ? await meanLoss(trainer, evalData) : NaN;
  const evalExactMatch = await exactMatch(trainer, evalSet.slice(0, 24), cfg);
  return { steps: step, finalLoss, evalLoss, evalExactMatch, trainedTokens, seconds: (performance.now() - t0) / 1000, losses, stoppedEarly, trainer };
}

// ------------------------------------------------------------------ CLI

const argsSchema = z.object({
  seed: z.coerce.number().int().min(0).default(DEFAULT_PRETRAIN.seed),
  rows: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_PRETRAIN.rows),
  steps: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_PRETRAIN.steps),
  batch: z.coerce.number().int().min(1).max(1024).default(DEFAULT_PRETRAIN.batch),
  lr: z.coerce.number().positive().max(1).default(DEFAULT_PRETRAIN.lr),
  "eval-rows": z.coerce.number().int().min(0).max(10_000).default(DEFAULT_PRETRAIN.evalRows),
  "max-minutes": z.coerce.number().positive().default(DEFAULT_PRETRAIN.maxMinutes),
  init: z.string().min(1).optional(),
  out: z.string().min(1).optional(),
});

function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new Error(`unexpected argument '${argv[i]}'`);
    out[m[1]] = m[2] ?? argv[++i];
  }
  return out;
}

async function main() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const parsed = argsSchema.safeParse(parseArgs(process.argv.slice(2)));
  if (!parsed.success) {
    console.error(parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("\n"));
    process.exit(2);
  }
  const a = parsed.data;
  const weightsRoot = a.out ? path.resolve(a.out) : path.join(here, "weights");
  const backend = await ensureBackend();
  const { generateTrainingTranscripts } = await import("../envs/shop/transcripts");
  const train = generateTrainingTranscripts(a.seed, a.rows);
  // Held-out rows come from a different seed (tasks may repeat across seeds: a smoke check, not a test set).
  const evalSet = generateTrainingTranscripts(a.seed + 1_000_003, a["eval-rows"]);
  const opts: PretrainOptions = { ...DEFAULT_PRETRAIN, seed: a.seed, rows: a.rows, steps: a.steps, batch: a.batch, lr: a.lr, evalRows: a["eval-rows"], maxMinutes: a["max-minutes"], init: a.init ? path.resolve(a.init) : undefined };
  console.log(`pretraining tiny-gpt (${countParams(opts.config)} params, backend ${backend}) on ${train.length} shop transcripts (${train.filter((t) => t.role === "act").length} act, ${train.filter((t) => t.role === "rehearse").length} rehearse)`);
  const r = await pretrain(train, evalSet, opts);
  const ckDir = path.join(weightsRoot, "tiny-gpt");
  const meta = {
    base_model: "tiny-gpt",
    command: `npm run node:pretrain -- --seed ${a.seed} --rows ${a.rows} --steps ${a.steps} --batch ${a.batch} --lr ${a.lr}${a.init ? ` --init ${path.relative(process.cwd(), a.init)}` : ""}`,
    init: a.init ? `continued from the checkpoint then at ${path.relative(process.cwd(), a.init)}` : "fresh initialisation",
    data: `generateTrainingTranscripts(${a.seed}, ${a.rows}) from worker/envs/shop/transcripts.ts`,
    steps: r.steps,
    final_loss: r.finalLoss,
    eval_loss: r.evalLoss,
    eval_exact_match: r.evalExactMatch,
    trained_tokens: r.trainedTokens,
    seconds: Math.round(r.seconds),
    created_at: new Date().toISOString(),
  };
  await saveCheckpoint(ckDir, opts.config, r.trainer.weightValues(), null, meta);
  const size = (await fs.stat(path.join(ckDir, "weights.bin"))).size;
  const readme = `# Warm-start weights of the embedded node ("tiny-gpt")

Written by \`worker/node/pretrain.ts\`; loaded by the node as the default \`tiny-gpt\` base model
(\`NODE_WEIGHTS_DIR\`, default \`worker/node/weights/tiny-gpt\`). Regenerate with:

    ${meta.command}

| | |
|---|---|
| model | ${countParams(opts.config)} parameters: ${opts.config.nLayer} layers, d=${opts.config.dModel}, ${opts.config.nHead} heads, vocab ${opts.config.vocabSize} (bytes + chat specials), context ${opts.config.contextLength} |
| data | ${meta.data}: ${train.length} rows (both roles, prompts exactly as the engine builds them) |
| objective | cross_entropy on completion tokens + \`<|end|>\` only (prompt weight 0), token mean per batch |
| optimiser | AdamW β=(0.9, 0.95), eps 1e-8, weight decay 0.01, grad clip 1, peak lr ${a.lr}, 6% warmup, cosine to 10% |
| steps | ${r.steps} × batch ${a.batch}${r.stoppedEarly ? " (stopped early by --max-minutes)" : ""}, ${r.trainedTokens} tokens, ${meta.seconds} s on ${backend} (2 shared cores) |
| seed | ${a.seed} (init, data order) |
| final train loss | ${r.finalLoss.toFixed(4)} (mean of the last 10 steps, nats/token) |
| held-out loss | ${r.evalLoss.toFixed(4)} on ${evalSet.length} rows from seed ${a.seed + 1_000_003} |
| greedy exact match | act ${(r.evalExactMatch.act * 100).toFixed(0)}%, rehearse ${(r.evalExactMatch.rehearse * 100).toFixed(0)}% on ${r.evalExactMatch.n} held-out rows |
| greedy output parses | act ${(r.evalExactMatch.actParseable * 100).toFixed(0)}% (the gold's kind: tool calls or reply), rehearse ${(r.evalExactMatch.rehearseParseable * 100).toFixed(0)}% (a valid execution_result) |
| size | weights.bin ${(size / 1e6).toFixed(2)} MB (float32) |
`;
  await fs.writeFile(path.join(weightsRoot, "README.md"), readme);
  console.log(`wrote ${ckDir} (${(size / 1e6).toFixed(2)} MB); final loss ${r.finalLoss.toFixed(4)}, held-out ${r.evalLoss.toFixed(4)}, exact match act ${r.evalExactMatch.act} rehearse ${r.evalExactMatch.rehearse}, parseable act ${r.evalExactMatch.actParseable} rehearse ${r.evalExactMatch.rehearseParseable}`);
  r.trainer.dispose();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main();
