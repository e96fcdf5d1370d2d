import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type GPTConfig, ensureBackend, initParamValues, tensorsFromValues } from "./model";
import { DEFAULT_LOSS_CONFIG, type LossConfig, type TrainDatum, Trainer, planMicroBatches, splitShares } from "./train";

const TINY: GPTConfig = { vocabSize: 16, contextLength: 16, nLayer: 1, nHead: 2, dModel: 8 };
const LC: LossConfig = { ...DEFAULT_LOSS_CONFIG, clipLowThreshold: 0.5, clipHighThreshold: 2, dualClipThreshold: 3, klCoef: 0.1, entropyCoef: 0.05 };
const BUDGET = 32; // padded tokens per micro-batch: several micro-batches even with the tiny context

/** Mixed lengths (3..16) in no particular order, so sorting by length really reorders them. */
function datums(n: number, seed: number): TrainDatum[] {
  return Array.from({ length: n }, (_, i) => {
    const len = 3 + ((i * 7 + seed) % 14);
    const tok = (j: number) => (i * 5 + j * 3 + seed) % 16;
    return {
      tokens: Array.from({ length: len }, (_, j) => tok(j)),
      targets: Array.from({ length: len }, (_, j) => tok(j + 1)),
      logprobs: Array.from({ length: len }, (_, j) => -2.2 - 0.1 * ((i + j) % 5)),
      advantages: Array.from({ length: len }, (_, j) => ((i + 2 * j) % 5) - 2),
    };
  });
}

function makeTrainer(threads: number): Trainer {
  const values = initParamValues(TINY, 7);
  // Larger init so losses and gradients are not flat.
  for (const v of values.values()) for (let i = 0; i < v.length; i++) v[i] *= 3;
  const t = new Trainer(TINY, values, tensorsFromValues(TINY, initParamValues(TINY, 8)), { threads });
  t.tokenBudget = BUDGET;
  t.minParallelTokens = 0;
  return t;
}

/** Largest elementwise difference relative to the largest magnitude, per tensor. */
function maxRelDiff(a: Map<string, Float32Array>, b: Map<string, Float32Array>): number {
  let worst = 0;
  for (const [name, x] of a) {
    const y = b.get(name)!;
    let scale = 1e-12;
    let diff = 0;
    for (let i = 0; i < x.length; i++) {
      scale = Math.max(scale, Math.abs(x[i]));
      diff = Math.max(diff, Math.abs(x[i] - y[i]));
    }
    worst = Math.max(worst, diff / scale);
  }
  return worst;
}

const trainers: Trainer[] = [];
beforeAll(async () => {
  await ensureBackend("wasm");
});
afterAll(async () => {
  await Promise.all(trainers.map((t) => t.dispose()));
});

describe("data-parallel forward_backward", () => {
  it("threads=2 gives the threads=1 gradients, loss and outputs, in the caller's order", async () => {
    const data = datums(12, 1);
    const [single, dual] = [makeTrainer(1), makeTrainer(2)];
    trainers.push(single, dual);
    const r1 = await single.forwardBackward(data, "ppo", LC);
    const r2 = await dual.forwardBackward(data, "ppo", LC);
    expect(dual.parallelStats).toMatchObject({ parallelCalls: 1, workerShares: 1, workerFallbacks: 0 });
    expect(single.parallelStats.parallelCalls).toBe(0);

    expect(maxRelDiff(single.gradValues()!, dual.gradValues()!)).toBeLessThan(1e-5);
    for (const k of Object.keys(r1.metrics)) expect(Math.abs(r2.metrics[k] - r1.metrics[k])).toBeLessThanOrEqual(1e-5 * Math.abs(r1.metrics[k]) + 1e-6);
    expect(Object.keys(r2.metrics).sort()).toEqual(Object.keys(r1.metrics).sort());
    expect(r2.outputs).toHaveLength(data.length);
    r2.outputs.forEach((o, i) => {
      expect(o.logprobs).toHaveLength(data[i].tokens.length);
      for (let j = 0; j < o.logprobs.length; j++) {
        expect(o.logprobs[j]).toBeCloseTo(r1.outputs[i].logprobs[j], 5);
        expect(o.elementwise_loss[j]).toBeCloseTo(r1.outputs[i].elementwise_loss[j], 5);
      }
    });
    // The caller's order, checked against each datum computed on its own.
    for (const i of [0, 5, 11]) {
      const alone = await single.forwardBackward([data[i]], "ppo", LC, true);
      alone.outputs[0].logprobs.forEach((lp, j) => expect(r2.outputs[i].logprobs[j]).toBeCloseTo(lp, 5));
    }

    // A second call accumulates on top (the worker reuses its cached KL reference).
    await dual.forwardBackward(data, "ppo", LC);
    const doubled = new Map([...single.gradValues()!].map(([k, v]) => [k, v.map((x) => 2 * x)]));
    expect(maxRelDiff(doubled, dual.gradValues()!)).toBeLessThan(1e-5);
    expect(dual.parallelStats).toMatchObject({ parallelCalls: 2, workerShares: 2, workerFallbacks: 0 });

    // forward-only calls use the worker too and accumulate nothing.
    const before = dual.gradValues()!;
    const fwd = await dual.forwardBackward(data, "ppo", LC, true);
    expect(Math.abs(fwd.metrics["loss:sum"] - r1.metrics["loss:sum"])).toBeLessThan(1e-5 * Math.abs(r1.metrics["loss:sum"]));
    expect(maxRelDiff(before, dual.gradValues()!)).toBe(0);
  });

  it("a non-finite loss in either share refuses the call and leaves accumulated gradients unchanged", async () => {
    const trainer = makeTrainer(2);
    trainers.push(trainer);
    const good = datums(10, 2);
    await trainer.forwardBackward(good, "importance_sampling", DEFAULT_LOSS_CONFIG);
    const before = trainer.gradValues()!;
    // Find datums that land in the main thread's share (0) and in the worker's share (1).
    const shares = splitShares(planMicroBatches(good, BUDGET), 2);
    expect(shares).toHaveLength(2);
    for (const share of shares) {
      const victim = share[0][0].index;
      const bad = good.map((d, i) => (i === victim ? { ...d, logprobs: d.logprobs!.map(() => -1000), advantages: d.advantages!.map(() => 1e30) } : d));
      await expect(trainer.forwardBackward(bad, "importance_sampling", DEFAULT_LOSS_CONFIG)).rejects.toThrow(/not finite/);
      expect(maxRelDiff(before, trainer.gradValues()!)).toBe(0);
    }
    expect(trainer.parallelStats).toMatchObject({ parallelCalls: 3, workerFallbacks: 0 });
    // The worker is still usable after a refusal.
    await trainer.forwardBackward(good, "importance_sampling", DEFAULT_LOSS_CONFIG);
    const doubled = new Map([...before].map(([k, v]) => [k, v.map((x) => 2 * x)]));
    expect(maxRelDiff(doubled, trainer.gradValues()!)).toBeLessThan(1e-5);
    expect(trainer.parallelStats.workerFallbacks).toBe(0);
  });

  it("small calls stay on the main thread", async () => {
    const trainer = new Trainer(TINY, initParamValues(TINY, 3), null, { threads: 2 });
    trainers.push(trainer);
    await trainer.forwardBackward(datums(4, 3), "ppo", DEFAULT_LOSS_CONFIG);
    expect(trainer.parallelStats.parallelCalls).toBe(0);
  });

  it("dispose terminates the worker: a tsx process with a parallel call exits on its own", async () => {
    // Also checks that the worker's TypeScript entry loads under tsx (the way the node runs), not only under vitest.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "train-threads-"));
    const script = path.join(dir, "run.mts");
    const here = path.dirname(fileURLToPath(import.meta.url));
    await fs.writeFile(
      script,
      `import { ensureBackend, initParamValues } from ${JSON.stringify(path.join(here, "model.ts"))};
import { DEFAULT_LOSS_CONFIG, Trainer } from ${JSON.stringify(path.join(here, "train.ts"))};
await ensureBackend("wasm");
const cfg = ${JSON.stringify(TINY)};
const t = new Trainer(cfg, initParamValues(cfg, 1), null, { threads: 2 });
t.tokenBudget = 32;
t.minParallelTokens = 0;
const data = Array.from({ length: 8 }, (_, i) => ({ tokens: [1, 2, 3, 4, 5, 6, 7, 8].slice(0, 3 + (i % 5)), targets: [2, 3, 4, 5, 6, 7, 8, 9].slice(0, 3 + (i % 5)) }));
await t.forwardBackward(data, "cross_entropy", DEFAULT_LOSS_CONFIG);
// Keep the event loop busy until dispose() resolves: a worker left running would keep the process alive.
await t.dispose();
console.log(JSON.stringify(t.parallelStats));
`,
    );
    const tsxCli = fileURLToPath(import.meta.resolve("tsx/cli"));
    const run = spawnSync(process.execPath, [tsxCli, script], { cwd: path.resolve(here, "../.."), encoding: "utf8", timeout: 30_000 });
    await fs.rm(dir, { recursive: true, force: true });
    expect(run.error).toBeUndefined();
    expect(run.stderr).not.toMatch(/gradient worker failed/);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.trim().split("\n").pop()!)).toEqual({ parallelCalls: 1, workerShares: 1, workerFallbacks: 0, mainThreadShares: 1 });
  });

  it("off the main thread: the calling thread computes no share and its event loop keeps running meanwhile", async () => {
    const make = (offMainThread: boolean, threads: number) => {
      const values = initParamValues(TINY, 7);
      const t = new Trainer(TINY, values, tensorsFromValues(TINY, initParamValues(TINY, 8)), { threads, offMainThread });
      t.tokenBudget = 4096; // one micro-batch: computed on this thread it would block the loop throughout
      trainers.push(t);
      return t;
    };
    const data = datums(48, 5);
    const ticksDuring = async (t: Trainer) => {
      await t.forwardBackward(data.slice(0, 2), "ppo", LC); // warm up (worker start, wasm compile)
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const r = await t.forwardBackward(data, "ppo", LC);
      clearInterval(timer);
      return { ticks, r };
    };
    const onMain = make(false, 1);
    const offMain = make(true, 1);
    const a = await ticksDuring(onMain);
    const b = await ticksDuring(offMain);
    expect(onMain.parallelStats).toMatchObject({ workerShares: 0, mainThreadShares: 2 });
    expect(offMain.parallelStats).toMatchObject({ workerShares: 2, mainThreadShares: 0, workerFallbacks: 0 });
    // On the main thread the one micro-batch runs without a break; off it, timers keep firing.
    expect(a.ticks).toBeLessThanOrEqual(1);
    expect(b.ticks).toBeGreaterThan(a.ticks + 2);
    // Same numbers either way.
    expect(maxRelDiff(onMain.gradValues()!, offMain.gradValues()!)).toBeLessThan(1e-5);
    expect(b.r.metrics["loss:sum"]).toBeCloseTo(a.r.metrics["loss:sum"], 4);
  });

  it("dispose resolves once the worker thread has exited", async () => {
    const trainer = makeTrainer(2);
    await trainer.forwardBackward(datums(8, 4), "cross_entropy", DEFAULT_LOSS_CONFIG);
    expect(trainer.parallelStats.parallelCalls).toBe(1);
    const exited = await Promise.race([trainer.dispose().then(() => "exited"), new Promise((r) => setTimeout(() => r("timeout"), 5000))]);
    expect(exited).toBe("exited");
  });
});
