/**
 * `npm run bench:model` — throughput of the embedded node's default model.
 *
 * Measures, in one run: training tokens/s (forward_backward + optim_step, cross-entropy, T=256) on one
 * thread and on the node's default threads (the JSON figure) and sampling tokens/s (batched KV-cache decoding) on the wasm backend; the same on the pure-JS
 * 'cpu' backend as the baseline; and the achieved training GFLOP/s as a fraction of plain
 * tf.matMul GFLOP/s measured on wasm with the model's own matrix shapes.
 * Last line: one JSON object.
 */
import * as tf from "@tensorflow/tfjs";
import { DEFAULT_CONFIG, type GPTConfig, countParams, initParamValues, sampleRows, switchBackend, tensorsFromValues, disposeParams } from "../worker/node/model";
import { DEFAULT_LOSS_CONFIG, Trainer, defaultTrainThreads, type TrainDatum } from "../worker/node/train";

const cfg: GPTConfig = DEFAULT_CONFIG;
const SEQ = 256;

function batch(n: number, seed: number): TrainDatum[] {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) % 256;
  return Array.from({ length: n }, () => {
    const seq = Array.from({ length: SEQ + 1 }, next);
    return { tokens: seq.slice(0, -1), targets: seq.slice(1) };
  });
}

async function trainTokensPerS(rows: number, steps: number, threads = 1, offMainThread = false): Promise<number> {
  const trainer = new Trainer(cfg, initParamValues(cfg, 0), null, { threads, offMainThread });
  const adam = { learningRate: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1 };
  await trainer.forwardBackward(batch(rows, 99), "cross_entropy", DEFAULT_LOSS_CONFIG); // warm-up (kernels, masks)
  trainer.optimStep(adam);
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) {
    await trainer.forwardBackward(batch(rows, i), "cross_entropy", DEFAULT_LOSS_CONFIG);
    trainer.optimStep(adam);
  }
  const dt = (performance.now() - t0) / 1000;
  trainer.dispose();
  return (rows * SEQ * steps) / dt;
}

async function sampleTokensPerS(rows: number, newTokens: number): Promise<number> {
  const params = tensorsFromValues(cfg, initParamValues(cfg, 0));
  const make = (seed: number) =>
    Array.from({ length: rows }, (_, i) => ({
      prompt: Array.from({ length: 64 }, (_, j) => (i * 31 + j * 7) % 256),
      options: { maxTokens: newTokens, temperature: 1, topP: 1, topK: 0, stopTokens: [], seed: seed + i },
    }));
  await sampleRows(params, cfg, make(1000).slice(0, 2).map((r) => ({ ...r, options: { ...r.options, maxTokens: 4 } })));
  const t0 = performance.now();
  const out = await sampleRows(params, cfg, make(0), { yieldEvery: 1000 });
  const dt = (performance.now() - t0) / 1000;
  disposeParams(params);
  return out.reduce((n, s) => n + s.tokens.length, 0) / dt;
}

/** FLOPs of one training token (forward + backward ≈ 3× forward), counting the matmuls actually run. */
function trainFlopsPerToken(): number {
  const d = cfg.dModel;
  const perLayer = 2 * (12 * d * d) + 2 * 2 * SEQ * d; // qkv/out/mlp matmuls + causal attention computed in full
  const forward = cfg.nLayer * perLayer + 2 * cfg.vocabSize * d /* one-hot embedding */ + 2 * cfg.vocabSize * d /* tied head */;
  return 3 * forward;
}

/** Peak plain tf.matMul GFLOP/s: the best rate over the model's shapes (B·T=1024 rows) and a 512³ product. */
function matmulGflops(): number {
  const d = cfg.dModel;
  const shapes: Array<[number, number, number]> = [
    [4 * SEQ, d, 3 * d],
    [4 * SEQ, d, 4 * d],
    [4 * SEQ, 4 * d, d],
    [4 * SEQ, d, cfg.vocabSize],
    [512, 512, 512],
  ];
  let best = 0;
  for (const [m, k, n] of shapes) {
    const a = tf.randomNormal([m, k]);
    const b = tf.randomNormal([k, n]);
    tf.tidy(() => tf.matMul(a, b).dataSync()); // warm-up
    const reps = 30;
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) tf.tidy(() => tf.matMul(a, b).dataSync());
    const secs = (performance.now() - t0) / 1000;
    best = Math.max(best, (reps * 2 * m * k * n) / secs / 1e9);
    a.dispose();
    b.dispose();
  }
  return best;
}

async function main() {
  const started = performance.now();
  console.log(`model: ${countParams(cfg)} params, ${cfg.nLayer} layers, d=${cfg.dModel}, heads=${cfg.nHead}, vocab=${cfg.vocabSize}, context=${cfg.contextLength}; training T=${SEQ}`);

  await switchBackend("wasm");
  // One thread against one thread for the backend ratio and the matmul fraction; the node's default
  // (data-parallel forward_backward on min(2, cores) gradient worker threads, none on the thread that
  // serves HTTP) on a batch that splits, for the headline figure.
  const trainWasm = await trainTokensPerS(4, 3);
  const threads = defaultTrainThreads();
  const trainWasmNode = await trainTokensPerS(16, 2, threads, true);
  const sampleWasm = await sampleTokensPerS(8, 48);
  const peak = matmulGflops();
  const achieved = (trainWasm * trainFlopsPerToken()) / 1e9;
  console.log(`wasm: train ${trainWasm.toFixed(0)} tok/s on one thread (${achieved.toFixed(2)} GFLOP/s), ${trainWasmNode.toFixed(0)} tok/s on the node's ${threads} gradient worker thread(s); sample ${sampleWasm.toFixed(0)} tok/s; plain matMul peak ${peak.toFixed(2)} GFLOP/s`);

  await switchBackend("cpu");
  const trainCpu = await trainTokensPerS(1, 2);
  const sampleCpu = await sampleTokensPerS(8, 16);
  console.log(`cpu (pure JS): train ${trainCpu.toFixed(0)} tok/s, sample ${sampleCpu.toFixed(0)} tok/s`);
  console.log(`speedup wasm/cpu: train ${(trainWasm / trainCpu).toFixed(2)}x, sample ${(sampleWasm / sampleCpu).toFixed(2)}x; took ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const round = (x: number, digits = 3) => Number(x.toFixed(digits));
  console.log(
    JSON.stringify({
      bench: "model",
      train_tokens_per_s: round(trainWasmNode, 1),
      sample_tokens_per_s: round(sampleWasm, 1),
      speedup_vs_pure_js: round(trainWasm / trainCpu, 2),
      matmul_peak_fraction: round(achieved / peak, 3),
    }),
  );
}

void main();
