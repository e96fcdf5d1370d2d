import { afterEach, beforeAll, describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { promises as fs } from "node:fs";
import { ensureBackend, initParamValues } from "../model";
import { saveCheckpoint } from "../checkpoint";
import { NodeService } from ".";
import { VOCAB_SIZE } from "../../../lib/renderers/tiny-gpt/tokenizer";

const SMALL = { vocabSize: VOCAB_SIZE, contextLength: 32, nLayer: 1, nHead: 2, dModel: 8 };
let service: NodeService | null = null;

beforeAll(async () => {
  await ensureBackend("wasm");
});
afterEach(() => {
  service?.close();
  service = null;
});

async function makeService(extra: Partial<ConstructorParameters<typeof NodeService>[0]> = {}) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "svc-"));
  service = new NodeService({ dataDir, baseConfig: SMALL, longPollMs: 50, ...extra });
  await service.init();
  return service;
}

const ce = (tokens: number[]) => ({
  loss_fn: "cross_entropy" as const,
  data: [{ model_input: { chunks: [{ tokens }] }, loss_fn_inputs: { target_tokens: { data: tokens } } }],
});

describe("NodeService", () => {
  it("loads the warm-start checkpoint as the base model when present", async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "warm-")), "tiny-gpt");
    const cfg = { ...SMALL, contextLength: 48 };
    await saveCheckpoint(dir, cfg, initParamValues(cfg, 3), null, { base_model: "tiny-gpt" });
    const s = await makeService({ warmStartDir: dir });
    expect(s.describeBase().source).toContain(dir);
    expect(s.capabilities().supported_models[0].max_context_length).toBe(48);
  });

  it("holds a seq_id that arrives early and runs ops in seq_id order", async () => {
    const s = await makeService();
    const { session_id } = s.createSession([]);
    const { model_id } = s.createModel({ session_id, base_model: "tiny-gpt", lora_config: { rank: 8 } });
    const opt = s.optimStep(model_id, 2, { learning_rate: 0.1, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 });
    expect(await s.retrieveFuture(opt.request_id, 30)).toBeNull(); // waiting for seq_id 1
    const fb = s.forwardBackward(model_id, 1, ce([1, 2, 3]), false);
    const fbDone = await s.retrieveFuture(fb.request_id, 5000);
    const optDone = await s.retrieveFuture(opt.request_id, 5000);
    expect(fbDone?.state).toBe("done");
    // optim_step ran after forward_backward: it had a gradient to apply.
    expect((optDone?.result as { metrics: Record<string, number> }).metrics.step).toBe(1);
  });

  it("fails a held request when the gap never fills", async () => {
    const s = await makeService({ gapTimeoutMs: 30 });
    const { session_id } = s.createSession([]);
    const { model_id } = s.createModel({ session_id, base_model: "tiny-gpt", lora_config: { rank: 8 } });
    const opt = s.optimStep(model_id, 3, { learning_rate: 0.1, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 });
    const f = await s.retrieveFuture(opt.request_id, 2000);
    expect(f?.state).toBe("failed");
    expect(f?.error).toMatch(/never arrived/);
  });

  it("unloads the models of a session whose heartbeats stopped", async () => {
    const s = await makeService({ sessionTimeoutMs: 1000 });
    const { session_id } = s.createSession([]);
    const { model_id } = s.createModel({ session_id, base_model: "tiny-gpt", lora_config: { rank: 8 } });
    s.heartbeat(session_id);
    expect(s.reapSessions(Date.now() + 500)).toEqual([]);
    expect(s.reapSessions(Date.now() + 5000)).toEqual([session_id]);
    expect(() => s.getInfo(model_id)).toThrow(/unknown model_id/);
    expect(() => s.heartbeat(session_id)).toThrow(/unknown session/);
  });
});
