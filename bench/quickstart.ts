/**
 * `npm run bench:quickstart`: the Quickstart preset (embedded node, built-in shop domain, world rehearsal
 * with shadow execution) trained for a fixed number of steps through the real protocols, on this machine's
 * CPUs. Prints reward and rehearsal fidelity over the first and last five steps and the per-role metrics,
 * and ends with one line of JSON.
 *
 * Options (env): QS_STEPS (default: the preset's 40), QS_SEED (0), QS_NODE_URL (use a running node instead of starting one);
 * for tuning experiments QS_LR, QS_TEMP, QS_INSTANCES, QS_K, QS_POOL (task pool size, 0 = whole split), QS_KL (KL coefficient, 0 = off),
 * QS_GROUND (reward.rehearsalGrounding, 0 = the method as published).
 */
import { parseRunConfig, quickstartPreset } from "../contracts/run-config";
import { TinkerPolicy } from "../worker/clients/tinker-policy";
import { builtinInstances } from "../worker/envs/builtin";
import { runTrainingStep, type StepResult } from "../worker/engine/step";
import { keyMetricsOf } from "../worker/runner/persist";
import { startEmbeddedNode } from "../test/processes";

const steps = Number(process.env.QS_STEPS ?? quickstartPreset.schedule?.steps ?? 40);
const seed = Number(process.env.QS_SEED ?? 0);
// Optional overrides for tuning experiments; the figures in docs/ use the preset as it is.
const lr = process.env.QS_LR ? Number(process.env.QS_LR) : undefined;
const instances = process.env.QS_INSTANCES ? Number(process.env.QS_INSTANCES) : undefined;
const rollouts = process.env.QS_K ? Number(process.env.QS_K) : undefined;
// QS_POOL=0 trains on the whole split instead of the preset's task pool.
const pool = process.env.QS_POOL !== undefined ? Number(process.env.QS_POOL) : undefined;
const parsed = parseRunConfig({
  ...quickstartPreset,
  schedule: { ...quickstartPreset.schedule, steps },
  data: { ...quickstartPreset.data, seed, ...(pool !== undefined ? { poolSize: pool || undefined } : {}), ...(instances ? { instancesPerStep: instances } : {}), ...(rollouts ? { rolloutsPerInstance: rollouts } : {}) },
  ...(process.env.QS_GROUND !== undefined ? { reward: { ...quickstartPreset.reward, rehearsalGrounding: Number(process.env.QS_GROUND) } } : {}),
  optim: { ...quickstartPreset.optim, ...(lr ? { lr } : {}), ...(process.env.QS_KL ? { useKl: Number(process.env.QS_KL) > 0, klCoef: Number(process.env.QS_KL) } : {}) },
  ...(process.env.QS_TEMP
    ? {
        sampling: {
          ...quickstartPreset.sampling,
          act: { ...quickstartPreset.sampling!.act!, temperature: Number(process.env.QS_TEMP) },
          rehearse: { ...quickstartPreset.sampling!.rehearse!, temperature: Number(process.env.QS_TEMP) },
        },
      }
    : {}),
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const config = parsed.config;

const node = process.env.QS_NODE_URL ? null : await startEmbeddedNode();
const baseUrl = process.env.QS_NODE_URL ?? node!.url;
// The node runs in its own process group: stop it when the benchmark is interrupted.
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void node?.kill("SIGKILL").then(() => process.exit(130)));
const policy = await TinkerPolicy.create({ baseUrl, model: config.policy.model });
// The same instances per step as a quickstart run of the worker (worker/envs/builtin.ts).
const instanceSource = builtinInstances(config);
const started = Date.now();
const rows: { step: number; reward: number; fidelity: number; metrics: Record<string, number>; toolFidelity: Record<string, number[]> }[] = [];

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const fmt = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? "   —  " : x.toFixed(3).padStart(6));

try {
  console.log(`quickstart: ${steps} steps × ${config.data.instancesPerStep} instances × ${config.data.rolloutsPerInstance} rollouts on ${baseUrl}`);
  console.log(" step  reward  fidelity  act-adv+  reh-adv+  act-len  reh-len  valid   gen-s  upd-s   sec  grad-norm");
  for (let step = 1; step <= steps; step++) {
    const t0 = Date.now();
    const result: StepResult = await runTrainingStep({
      instances: instanceSource.forStep(step),
      config,
      policy,
      trainer: policy,
      stepIndex: step,
      runId: "bench-quickstart",
    });
    const key = keyMetricsOf(result);
    const m = result.metrics;
    // Fidelity per tool: the mix of calls changes as the act role learns, which moves the overall mean.
    const toolFidelity: Record<string, number[]> = {};
    for (const t of result.trajectories)
      for (const turn of t.turns) if (turn.fidelity && turn.call) (toolFidelity[turn.call.name] ??= []).push(turn.fidelity.score);
    rows.push({ step, reward: key["reward/mean"] ?? 0, fidelity: key["fidelity/mean"] ?? 0, metrics: m, toolFidelity });
    console.log(
      `${String(step).padStart(5)} ${fmt(key["reward/mean"])}  ${fmt(key["fidelity/mean"])}    ${fmt(m["critic/act/advantages/max"])}    ${fmt(m["critic/rehearse/advantages/max"])}   ${fmt(m["response_length/act/mean"])}   ${fmt(m["response_length/rehearse/mean"])}  ${fmt(m["episode/valid_action_ratio"])} ${fmt(m["timing_s/gen"])} ${fmt(m["timing_s/update_actor"])} ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}  ${(m["actor/grad_norm"] ?? NaN).toExponential(2)}`,
    );
  }
} finally {
  policy.close();
  await node?.kill("SIGKILL");
}

const first = rows.slice(0, 5);
const last = rows.slice(-5);
const summary = {
  bench: "quickstart",
  steps,
  minutes: Number(((Date.now() - started) / 60_000).toFixed(2)),
  reward_first5: Number(mean(first.map((r) => r.reward)).toFixed(4)),
  reward_last5: Number(mean(last.map((r) => r.reward)).toFixed(4)),
  fidelity_first5: Number(mean(first.map((r) => r.fidelity)).toFixed(4)),
  fidelity_last5: Number(mean(last.map((r) => r.fidelity)).toFixed(4)),
};
const roleKeys = Object.keys(rows[rows.length - 1]?.metrics ?? {}).filter((k) => /^critic\/(act|rehearse)\/(score|advantages)\/mean$|^response_length\/(act|rehearse)\/mean$|^(act|rehearse)\/valid_action_ratio$/.test(k));
console.log("\nper-role metrics, mean of first 5 → last 5 steps:");
for (const k of roleKeys.sort()) console.log(`  ${k.padEnd(34)} ${fmt(mean(first.map((r) => r.metrics[k] ?? NaN)))} → ${fmt(mean(last.map((r) => r.metrics[k] ?? NaN)))}`);
console.log("rehearsal fidelity by tool, first 5 → last 5 steps (mean score, share exactly right, calls):");
for (const tool of [...new Set(rows.flatMap((r) => Object.keys(r.toolFidelity)))].sort()) {
  const pooled = (rs: typeof rows) => rs.flatMap((r) => r.toolFidelity[tool] ?? []);
  if (pooled(first).length + pooled(last).length === 0) continue; // a misspelled tool seen only mid-run
  const exact = (rs: typeof rows) => mean(pooled(rs).map((x) => (x === 1 ? 1 : 0)));
  console.log(`  ${tool.padEnd(34)} ${fmt(mean(pooled(first)))} → ${fmt(mean(pooled(last)))}   exact ${fmt(exact(first))} → ${fmt(exact(last))}   (${pooled(first).length} → ${pooled(last).length} calls)`);
}
console.log(JSON.stringify(summary));
process.exit(0);
