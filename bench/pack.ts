/**
 * `npm run bench:pack` — the worker's cost of handing one paper-scale training step to a Tinker node.
 *
 * A step of 16 prompts × 4 rollouts × (10 act + 10 rehearse) generations of ~300 tokens is rendered
 * by the policy with the Qwen3 renderer (lib/renderers; bench/pack-data.ts), then
 * TinkerPolicy.forwardBackward packs it (datums,
 * zero-advantage drop, prefix folding), checks it, cuts it into chunks within client/config's limits
 * and serialises each chunk exactly as the client posts it (protobuf, SDK 0.25), to an in-process
 * stand-in of a hosted Tinker server that only records the bodies.
 *
 * Figures: render CPU (tokenising prompts; printed, not a target — it is spread over the step's
 * generations in a real run), pack CPU (worker CPU seconds from forwardBackward's call to its last
 * POST: building, packing, checking, chunking and serialising), the longest event-loop stall during
 * that (a 2 ms ticker's largest lateness), the largest request body and the total.
 * The heap is collected once before the measurement (a worker between steps has no rendering garbage).
 * Targets: pack ≤ 0.5 s CPU, stall ≤ 100 ms, body ≤ 5 MB.
 *
 * Ends with ONE line of JSON: {"bench":"pack","pack_cpu_s","max_stall_ms","max_body_mb"}.
 */
import v8 from "node:v8";
import vm from "node:vm";
import { buildPackStep, PAPER_SCALE, type PackScale } from "./pack-data";
import { decodeForwardBackwardRequest } from "../lib/clients/tinker-proto";
import { loadRenderer } from "../lib/renderers";
import { TinkerPolicy } from "../worker/clients/tinker-policy";
import type { LossConfig } from "../worker/engine/io";

export interface PackResult {
  datums: number;
  renderCpuS: number;
  promptTokens: number;
  responseTokens: number;
  packCpuS: number;
  packWallS: number;
  maxStallMs: number;
  stallCpuMs: number;
  bodies: number[];
  /** What was posted: datums after dropping zero-advantage ones and folding prefixes, and their positions. */
  sent: { datums: number; positions: number };
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
        return json({ pjwt_auth_enabled: false });
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
  return { impl, bodies, contents };
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

export async function runPackBench(scale: PackScale = PAPER_SCALE): Promise<PackResult> {
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
    const step = buildPackStep(scale, (messages, tools) => policy.promptTokens(messages, tools));
    // Start from a settled heap, as a worker is between steps: the rendering above (done over minutes
    // of generations in a real run) leaves garbage the pack should not be charged for.
    fullGc();
    await new Promise((r) => setTimeout(r, 20));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const { maxStallMs, stallCpuMs } = await withStallMeter(() => policy.forwardBackward(step.data, loss));
    const cpu = process.cpuUsage(cpu0);
    return {
      datums: step.data.length,
      renderCpuS: step.renderCpuS,
      promptTokens: step.promptTokens,
      responseTokens: step.responseTokens,
      packCpuS: (cpu.user + cpu.system) / 1e6,
      packWallS: (performance.now() - t0) / 1000,
      maxStallMs,
      stallCpuMs,
      bodies: server.bodies,
      sent: server.contents(),
    };
  } finally {
    policy.close();
  }
}

async function main() {
  const r = await runPackBench();
  const mb = (n: number) => n / 1e6;
  const maxBody = Math.max(...r.bodies);
  console.log(`step: ${PAPER_SCALE.prompts} prompts × ${PAPER_SCALE.rollouts} rollouts × ${PAPER_SCALE.turns} act + ${PAPER_SCALE.turns} rehearse = ${r.datums} generations`);
  console.log(`tokens: ${(r.promptTokens / 1e6).toFixed(2)} M prompt, ${(r.responseTokens / 1e3).toFixed(0)} k sampled (${Math.round(r.responseTokens / r.datums)} per generation)`);
  console.log(`render (TinkerPolicy.promptTokens, qwen3 renderer, incremental history): ${r.renderCpuS.toFixed(2)} s CPU`);
  console.log(`pack + check + chunk + serialise: ${r.packCpuS.toFixed(3)} s CPU, ${r.packWallS.toFixed(3)} s wall, longest event-loop stall ${r.maxStallMs.toFixed(1)} ms (${r.stallCpuMs.toFixed(1)} ms of CPU in it)`);
  console.log(`sent: ${r.sent.datums} datums, ${(r.sent.positions / 1e6).toFixed(2)} M positions (zero-advantage datums dropped, prefixes folded)`);
  console.log(`bodies: ${r.bodies.length} forward_backward requests (protobuf), largest ${mb(maxBody).toFixed(2)} MB, total ${mb(r.bodies.reduce((a, b) => a + b, 0)).toFixed(1)} MB`);
  console.log(`targets: pack ≤ 0.5 s CPU ${r.packCpuS <= 0.5 ? "✓" : "✗"}, stall ≤ 100 ms ${r.maxStallMs <= 100 ? "✓" : "✗"}, body ≤ 5 MB ${mb(maxBody) <= 5 ? "✓" : "✗"}`);
  console.log(JSON.stringify({ bench: "pack", pack_cpu_s: Number(r.packCpuS.toFixed(3)), max_stall_ms: Number(r.maxStallMs.toFixed(1)), max_body_mb: Number(mb(maxBody).toFixed(2)) }));
}

if (import.meta.url === `file://${process.argv[1]}`) void main();
