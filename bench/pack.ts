/**
 * `npm run bench:pack` — the worker's CPU for one paper-scale training step on the real-node path.
 *
 * The step is the product's (bench/pack-data.ts): the engine's rollout machine drives 16 instances × 4
 * rollouts (the paper's 64 trajectories) with the paper's limits — up to 30 turns, act context budget and
 * rehearse left-truncation at 12,000 tokens — and replies of 2,000 tokens with thinking; every prompt is
 * rendered by TinkerPolicy.requestPromptTokens (Qwen3 renderer, each rollout's render cache). Then
 * TinkerPolicy.forwardBackward packs the step (datums, zero-advantage drop, prefix folding), checks it,
 * cuts it into chunks within the server's limits and serialises each chunk exactly as the client posts
 * it (protobuf, SDK 0.25), to an in-process stand-in of a Tinker server that advertises the embedded
 * node's chunk limit (worker/node/protocol.ts MAX_CHUNK_BYTES = the SDK's fwdbwd_max_chunk_bytes_count,
 * 5,000,000 bytes; a larger body is refused with 413) and records the bodies.
 *
 * Figures: render CPU (every prompt of the step, summed over its generations), pack CPU (forwardBackward's
 * call to its last POST), the machine's own CPU (printed, not a target), the longest event-loop stall
 * (the longest single render call, and a 2 ms ticker's largest lateness during the pack), the largest
 * request body against the limit. Targets (2 cores): render + pack ≤ 1 s CPU, stall ≤ 100 ms, bodies ≤ the limit.
 * The heap is collected once before the pack (a worker between steps has no rendering garbage).
 *
 * Flags: --instances N --rollouts N --max-turns N --reply-tokens N --budget N (default: the paper's step).
 * Ends with ONE line of JSON: {"bench":"pack","render_cpu_s","pack_cpu_s","max_stall_ms","max_body_mb",
 * "turns_per_rollout","reply_tokens",…}.
 */
import v8 from "node:v8";
import vm from "node:vm";
import os from "node:os";
import { buildPackStep, PAPER_SCALE, type PackScale, type PackStep } from "./pack-data";
import { MAX_CHUNK_BYTES } from "../worker/node/protocol";
import { decodeForwardBackwardRequest } from "../lib/clients/tinker-proto";
import { loadRenderer } from "../lib/renderers";
import { TinkerPolicy } from "../worker/clients/tinker-policy";
import type { LossConfig } from "../worker/engine/io";

export interface PackResult {
  scale: PackScale;
  step: Omit<PackStep, "data">;
  datums: number;
  packCpuS: number;
  packWallS: number;
  /** Longest event-loop lateness during the pack, and the CPU spent in it. */
  packStallMs: number;
  stallCpuMs: number;
  bodies: number[];
  /** The chunk limit the server advertised (and enforces). */
  bodyLimitBytes: number;
  /** What was posted: datums after dropping zero-advantage ones and folding prefixes, and their positions. */
  sent: { datums: number; positions: number };
  /** With `verify`: the request bodies as posted. */
  bodyBytes?: Uint8Array[];
}

/** A full garbage collection (exposes V8's gc() to this process once). */
function fullGc(): void {
  v8.setFlagsFromString("--expose-gc");
  (vm.runInNewContext("gc") as () => void)();
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** A hosted-Tinker-shaped responder that records request bodies and answers every future at once. */
function recordingServer() {
  const bodies: number[] = [];
  const kept: Uint8Array[] = [];
  let future = 0;
  const impl: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname.replace(/^\/api\/v1\//, "");
    const body = init?.body;
    switch (path) {
      case "client/config":
        return json({ pjwt_auth_enabled: false, fwdbwd_max_chunk_bytes_count: MAX_CHUNK_BYTES });
      case "get_server_capabilities":
        return json({ supported_models: [{ model_name: "Qwen/Qwen3-8B", max_context_length: 40960 }] });
      case "create_session":
        return json({ session_id: "bench-session" });
      case "session_heartbeat":
        return json({ type: "session_heartbeat" });
      case "create_sampling_session":
        return json({ sampling_session_id: "bench-sampler" });
      case "create_model":
        return json({ request_id: `create-${++future}`, model_id: "bench-session:train:0" });
      case "forward_backward":
        if ((body instanceof Uint8Array ? body.byteLength : Buffer.byteLength(String(body))) > MAX_CHUNK_BYTES) return json({ detail: "request body too large" }, 413);
        bodies.push(body instanceof Uint8Array ? body.byteLength : Buffer.byteLength(String(body)));
        if (body instanceof Uint8Array) kept.push(body);
        return json({ request_id: `fb-${++future}` });
      case "retrieve_future": {
        const id = (JSON.parse(String(body)) as { request_id: string }).request_id;
        if (id.startsWith("create")) return json({ model_id: "bench-session:train:0" });
        return json({ loss_fn_output_type: "scalar", loss_fn_outputs: [], metrics: { "loss:sum": 0 } });
      }
    }
    return json({ detail: `no route ${path}` }, 404);
  };
  /** Datums and positions in the recorded bodies (decoded after the measurement). */
  const contents = () => {
    let datums = 0;
    let positions = 0;
    for (const b of kept) for (const d of decodeForwardBackwardRequest(b).data) (datums++, (positions += d.tokens.length));
    return { datums, positions };
  };
  return { impl, bodies, contents, kept };
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Largest lateness of a 2 ms ticker while `run` is in flight, and the process CPU time spent during
 * that gap (on a busy machine a short synchronous block is stretched by the scheduler; the CPU figure
 * is the block's own cost).
 */
async function withStallMeter<T>(run: () => Promise<T>): Promise<{ value: T; maxStallMs: number; stallCpuMs: number }> {
  const period = 2;
  let last = performance.now();
  let lastCpu = cpuMs();
  let max = 0;
  let maxCpu = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = cpuMs();
    if (now - last - period > max) {
      max = now - last - period;
      maxCpu = cpu - lastCpu;
    }
    last = now;
    lastCpu = cpu;
  };
  const timer = setInterval(tick, period);
  try {
    const value = await run();
    tick();
    return { value, maxStallMs: max, stallCpuMs: maxCpu };
  } finally {
    clearInterval(timer);
  }
}

export async function runPackBench(scale: PackScale = PAPER_SCALE, opts: { verify?: boolean } = {}): Promise<PackResult> {
  const server = recordingServer();
  const policy = await TinkerPolicy.create({
    baseUrl: "https://tinker.thinkingmachines.dev",
    apiKey: "tml-bench",
    nodeName: "bench",
    model: "Qwen/Qwen3-8B",
    renderer: loadRenderer("qwen3"),
    client: { fetch: server.impl },
    onWarning: () => {},
  });
  const loss: LossConfig = { loss: "ppo", clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klCoef: 0, klType: "low_var_kl", entropyCoef: 0, lossAgg: "token-mean", recomputeLogprobs: false };
  try {
    const { data, ...step } = buildPackStep(scale, policy, opts);
    // Start from a settled heap, as a worker is between steps: the rendering above (done over minutes
    // of generations in a real run) leaves garbage the pack should not be charged for.
    fullGc();
    await new Promise((r) => setTimeout(r, 20));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const { maxStallMs, stallCpuMs } = await withStallMeter(() => policy.forwardBackward(data, loss));
    const cpu = process.cpuUsage(cpu0);
    return {
      scale,
      step,
      datums: data.length,
      packCpuS: (cpu.user + cpu.system) / 1e6,
      packWallS: (performance.now() - t0) / 1000,
      packStallMs: maxStallMs,
      stallCpuMs,
      bodies: server.bodies,
      bodyLimitBytes: MAX_CHUNK_BYTES,
      sent: server.contents(),
      ...(opts.verify ? { bodyBytes: server.kept } : {}),
    };
  } finally {
    policy.close();
  }
}

/** The JSON line (and the figures docs/BENCHMARKS.md quotes). */
export function packSummary(r: PackResult) {
  const maxBody = Math.max(...r.bodies);
  const stall = Math.max(r.packStallMs, r.step.maxRenderMs);
  const round = (x: number, d: number) => Number(x.toFixed(d));
  return {
    bench: "pack",
    render_cpu_s: round(r.step.renderCpuS, 3),
    pack_cpu_s: round(r.packCpuS, 3),
    render_plus_pack_cpu_s: round(r.step.renderCpuS + r.packCpuS, 3),
    machine_cpu_s: round(r.step.machineCpuS, 3),
    max_stall_ms: round(stall, 1),
    // The same blocks in CPU time: on a loaded machine the wall time of a block includes waiting for a core.
    max_stall_cpu_ms: round(Math.max(r.stallCpuMs, r.step.maxRenderCpuMs), 1),
    max_body_mb: round(maxBody / 1e6, 2),
    body_limit_mb: round(r.bodyLimitBytes / 1e6, 2),
    instances: r.scale.instances,
    rollouts: r.scale.rollouts,
    max_turns: r.scale.maxTurns,
    turns_per_rollout: round(r.step.turnsPerRollout.mean, 2),
    reply_tokens: r.scale.replyTokens,
    prompt_budget_tokens: r.scale.promptBudgetTokens,
    generations: r.step.generations.act + r.step.generations.rehearse,
    prompt_tokens: r.step.promptTokens,
    sampled_tokens: r.step.responseTokens,
    sent_positions: r.sent.positions,
    load_1m: round(os.loadavg()[0], 2),
    cpus: os.cpus().length,
    targets_met: r.step.renderCpuS + r.packCpuS <= 1 && stall <= 100 && maxBody <= r.bodyLimitBytes,
  };
}

function parseScale(argv: string[]): PackScale {
  const scale = { ...PAPER_SCALE };
  const flags: Record<string, keyof PackScale> = { "--instances": "instances", "--rollouts": "rollouts", "--max-turns": "maxTurns", "--reply-tokens": "replyTokens", "--budget": "promptBudgetTokens" };
  for (let i = 0; i < argv.length; i++) {
    const key = flags[argv[i]];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isInteger(value) || value < 1) throw new Error(`bench:pack: unknown flag or bad value at "${argv[i]} ${argv[i + 1] ?? ""}" (flags: ${Object.keys(flags).join(", ")}; positive integers)`);
    scale[key] = value;
    i++;
  }
  return scale;
}

async function main() {
  const scale = parseScale(process.argv.slice(2));
  const r = await runPackBench(scale);
  const s = packSummary(r);
  const mb = (n: number) => (n / 1e6).toFixed(2);
  const g = r.step.generations;
  console.log(`step: ${scale.instances} instances × ${scale.rollouts} rollouts, up to ${scale.maxTurns} turns, replies of ${scale.replyTokens} tokens with thinking, prompt budget ${scale.promptBudgetTokens}`);
  console.log(`machine: ${g.act} act + ${g.rehearse} rehearse generations; turns per rollout ${r.step.turnsPerRollout.mean.toFixed(2)} (max ${r.step.turnsPerRollout.max}); endings ${JSON.stringify(r.step.terminations)}`);
  console.log(`tokens: ${(r.step.promptTokens / 1e6).toFixed(2)} M prompt (largest ${r.step.maxPromptTokens}; ${r.step.truncatedRehearsePrompts} rehearse prompts cut to the budget), ${(r.step.responseTokens / 1e6).toFixed(2)} M sampled`);
  console.log(`act prompts extending the rollout's previous one: ${r.step.actPrefixExtensions.extended} of ${r.step.actPrefixExtensions.of}`);
  console.log(`render (TinkerPolicy.requestPromptTokens, qwen3, per-rollout cache): ${r.step.renderCpuS.toFixed(3)} s CPU, longest call ${r.step.maxRenderMs.toFixed(1)} ms (${r.step.maxRenderCpuMs.toFixed(1)} ms of CPU)`);
  console.log(`machine (nextNeed/applyEvent: rehearse prompts, parsing, budget counts): ${r.step.machineCpuS.toFixed(3)} s CPU`);
  console.log(`pack + check + chunk + serialise: ${r.packCpuS.toFixed(3)} s CPU, ${r.packWallS.toFixed(3)} s wall, longest event-loop stall ${r.packStallMs.toFixed(1)} ms (${r.stallCpuMs.toFixed(1)} ms of CPU in it)`);
  console.log(`sent: ${r.datums} rows → ${r.sent.datums} datums, ${(r.sent.positions / 1e6).toFixed(2)} M positions (zero-advantage datums dropped, prefixes folded)`);
  console.log(`bodies: ${r.bodies.length} forward_backward requests (protobuf), largest ${mb(Math.max(...r.bodies))} MB of ${mb(r.bodyLimitBytes)} MB allowed, total ${mb(r.bodies.reduce((a, b) => a + b, 0))} MB`);
  console.log(`targets: render + pack ≤ 1 s CPU ${s.render_plus_pack_cpu_s <= 1 ? "✓" : "✗"} (${s.render_plus_pack_cpu_s} s), stall ≤ 100 ms ${s.max_stall_ms <= 100 ? "✓" : "✗"}, body ≤ limit ${Math.max(...r.bodies) <= r.bodyLimitBytes ? "✓" : "✗"}; load ${s.load_1m} on ${s.cpus} CPUs`);
  console.log(JSON.stringify(s));
}

if (import.meta.url === `file://${process.argv[1]}`) void main();
