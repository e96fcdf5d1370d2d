/**
 * `npm run bench:state-save`: what saving the full training state (weights + optimiser, `save_weights`)
 * costs on the embedded node next to the training step it follows, at the Quickstart preset's shape.
 * The figure behind the presets' `schedule.stateEvery` (docs/BENCHMARKS.md). Trains STATE_STEPS steps
 * (default 4) through the real protocol, saves the state after each, measures its size on disk, deletes
 * it, and ends with one line of JSON (medians; the load average at the end, since the box is shared).
 * STATE_NODE_URL + STATE_MODEL measure a running Tinker-compatible node and its model instead (a GPU node:
 * the figure the paper preset's stateEvery should be checked against).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseRunConfig, quickstartPreset } from "../contracts/run-config";
import { TinkerPolicy } from "../worker/clients/tinker-policy";
import { builtinInstances } from "../worker/envs/builtin";
import { runTrainingStep } from "../worker/engine/step";
import { startEmbeddedNode } from "../test/processes";

const steps = Number(process.env.STATE_STEPS ?? 4);
const nodeUrl = process.env.STATE_NODE_URL;
const model = process.env.STATE_MODEL;
const parsed = parseRunConfig({
  ...quickstartPreset,
  ...(model ? { policy: { ...quickstartPreset.policy, model } } : {}),
  schedule: { ...quickstartPreset.schedule, steps },
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const config = parsed.config;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Bytes under the directory called `name` somewhere below `root` (the node's checkpoint folder). */
function sizeOf(root: string, name: string): number {
  let total = 0;
  const walk = (dir: string, inside: boolean) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p, inside || e.name === name);
      else if (inside) total += fs.statSync(p).size;
    }
  };
  walk(root, false);
  return total;
}

const node = nodeUrl ? null : await startEmbeddedNode();
const baseUrl = nodeUrl ?? node!.url;
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void node?.kill("SIGKILL").then(() => process.exit(130)));
const policy = await TinkerPolicy.create({ baseUrl, model: config.policy.model });
const instances = builtinInstances(config);
const stepS: number[] = [];
const saveS: number[] = [];
const bytes: (number | null)[] = [];
try {
  console.log(`state-save: ${steps} steps × ${config.data.instancesPerStep} instances × ${config.data.rolloutsPerInstance} rollouts (${config.policy.model}) on ${baseUrl}`);
  console.log(" step  step-s  save-s  share  state-MB");
  for (let step = 1; step <= steps; step++) {
    const t0 = performance.now();
    await runTrainingStep({ instances: instances.forStep(step), config, policy, trainer: policy, stepIndex: step, runId: "bench-state-save" });
    const t1 = performance.now();
    const name = `bench-state-${step}`;
    const state = await policy.saveState(name);
    const t2 = performance.now();
    // On a remote node its disk is not ours to read (null).
    const size = node ? sizeOf(node.dataDir, name) : null;
    await policy.deleteState(state.path);
    stepS.push((t1 - t0) / 1000);
    saveS.push((t2 - t1) / 1000);
    bytes.push(size);
    console.log(`${String(step).padStart(5)}  ${stepS.at(-1)!.toFixed(2).padStart(6)}  ${saveS.at(-1)!.toFixed(3).padStart(6)}  ${((saveS.at(-1)! / stepS.at(-1)!) * 100).toFixed(2).padStart(5)}%  ${size === null ? "       —" : (size / 1e6).toFixed(2).padStart(8)}`);
  }
} finally {
  policy.close();
  await node?.kill("SIGKILL");
}
const out = {
  bench: "state_save",
  model: config.policy.model,
  steps,
  step_s_median: Number(median(stepS).toFixed(2)),
  save_s_median: Number(median(saveS).toFixed(3)),
  save_share_of_step: Number((median(saveS) / median(stepS)).toFixed(4)),
  state_mb: node ? Number((median(bytes as number[]) / 1e6).toFixed(2)) : null,
  load_avg_1m: Number(os.loadavg()[0]!.toFixed(2)),
  cores: os.cpus().length,
};
console.log(JSON.stringify(out));
