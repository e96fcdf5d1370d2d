/**
 * The policy an evaluation samples, opened (and opened again after a node restart) from what the config
 * names:
 * - a base model: a sampling session on it (Tinker-compatible node) or the model by name (OpenAI node);
 * - a checkpoint on the Tinker-compatible node that holds it: a sampling session created with the
 *   checkpoint's sampler path; the node is asked what the session samples (GET samplers/{id}) and one
 *   token is sampled before any rollout, so a checkpoint the node lost fails the run with the cause;
 * - a checkpoint evaluated on an OpenAI-compatible node (vLLM): exported as a LoRA adapter — the archive
 *   from the Tinker node that holds it, unpacked into the node's lora.adapterDir — loaded at runtime, and
 *   sampled by its adapter name.
 * A checkpoint found missing on its node is marked deleted (Checkpoint.deletedAt), so later launches are
 * refused at once.
 */
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { RunConfig } from "../../../contracts/run-config";
import { describeCheckpoint, type ResolvedCheckpoint } from "../../../lib/launch-check";
import { checkpointArchiveLocation, downloadArchive } from "../../../lib/clients/tinker-archive";
import type { ChatRenderer } from "../../../lib/renderers";
import { ADAPTER_CONFIG, unpackAdapter } from "../../clients/adapter-archive";
import type { TinkerPolicy } from "../../clients/tinker-policy";
import { loadLoraAdapter, servedModels } from "../../clients/vllm-lora";
import type { GenerateRequest, PolicyClient } from "../../engine/io";
import type { RunEnvironment } from "../../envs";
import type { RunContext } from "../context";
import { whileDatabaseDown } from "../durable";
import { chatClientFor, resolveNode, tinkerClientFor, trainingPolicyFor, type ResolvedNode } from "../nodes";
import { samplingPolicy } from "./common";

/** The checkpoint is gone from its node: no retry can bring it back. */
export class CheckpointLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CheckpointLostError";
  }
}

interface ErrorShape {
  name?: unknown;
  status?: unknown;
  code?: unknown;
  message?: unknown;
}

/** Codes a restarted node answers for what it forgot (a session, a sampler) — not a missing checkpoint. */
const RESTART_CODES = new Set(["unknown_sampler", "unknown_session", "unknown_request"]);

/** Whether a failed call says the node does not have the sampler checkpoint (create_sampling_session or asample answered 404). */
export function checkpointMissing(err: unknown): boolean {
  const e = (err ?? {}) as ErrorShape;
  if (e.name !== "TinkerError" || e.status !== 404 || typeof e.message !== "string") return false;
  if (/create_sampling_session/.test(e.message)) return true;
  return /asample/.test(e.message) && !RESTART_CODES.has(String(e.code ?? ""));
}

export interface OpenedPolicy {
  policy: PolicyClient;
  /** The policy's tokenizer (Tinker nodes), for test-time transcript bounds. */
  renderer?: ChatRenderer;
}

export interface EvaluationPolicy {
  open(): Promise<OpenedPolicy>;
  close(): void;
  /** After a pass in which the checkpoint's sampler answered 404: throws CheckpointLostError when the node no longer has it. */
  recheck(): Promise<void>;
  /** Whether a generation of the open policy saw the checkpoint missing. */
  suspect(): boolean;
}

export function evaluationPolicy(ctx: RunContext, env: RunEnvironment, config: RunConfig, node: ResolvedNode, checkpoint: ResolvedCheckpoint | null): EvaluationPolicy {
  const warn = (m: string) => void ctx.log("warn", m);
  let tinker: TinkerPolicy | null = null;
  let opened: OpenedPolicy | null = null;
  let sawMissing = false;
  let adapterReady: string | null = null;

  const lost = async (cause: string): Promise<never> => {
    const c = checkpoint!;
    const reason = `missing on node "${c.nodeName}" when evaluation ${ctx.runId} opened it: ${cause.slice(0, 300)}`;
    await whileDatabaseDown(() => ctx.prisma.checkpoint.updateMany({ where: { id: c.id, deletedAt: null }, data: { deletedAt: new Date(), deletedReason: reason } }), { signal: ctx.signal }).catch(() => {});
    throw new CheckpointLostError(`${describeCheckpoint(c)} (${c.samplerPath}) is no longer on node "${c.nodeName}": ${cause}`);
  };

  /** A sampling session on the checkpoint, checked: the node names the path, and one token samples. */
  async function openCheckpointSampler(c: ResolvedCheckpoint): Promise<TinkerPolicy> {
    let policy: TinkerPolicy;
    try {
      policy = await trainingPolicyFor(node, config.policy, undefined, warn, { sampleOnly: true, samplerPath: c.samplerPath });
    } catch (e) {
      if (checkpointMissing(e)) return lost((e as Error).message);
      throw e;
    }
    try {
      const info = await policy.client.samplerInfo(policy.sampler.id);
      if (info.modelPath !== c.samplerPath) {
        throw new Error(`node "${node.name}": sampling session ${policy.sampler.id} samples ${info.modelPath ?? `the base model ${info.baseModel}`}, not ${c.samplerPath}`);
      }
      await probe(policy);
      await ctx.log("info", `sampling ${describeCheckpoint(c)}: node "${node.name}" sampling session ${policy.sampler.id} samples ${info.modelPath}`);
      return policy;
    } catch (e) {
      policy.close();
      if (checkpointMissing(e)) return lost((e as Error).message);
      throw e;
    }
  }

  /** Export the checkpoint as a LoRA adapter to the OpenAI-compatible node (once per attempt; skipped when it is loaded). */
  async function ensureAdapter(c: ResolvedCheckpoint): Promise<string> {
    const name = `envace-ckpt-${c.id}`;
    const vllm = { name: node.name, baseUrl: node.baseUrl, apiKey: node.apiKey };
    if ((await servedModels(vllm, ctx.signal)).includes(name)) {
      if (adapterReady !== name) await ctx.log("info", `${describeCheckpoint(c)} is loaded on node "${node.name}" as LoRA adapter ${name}`);
      return (adapterReady = name);
    }
    const dir = node.settings.lora.adapterDir;
    if (!dir) throw new Error(`node "${node.name}" does not load LoRA adapters: set its lora.adapterDir`);
    const local = path.join(dir, name);
    if (!(await stat(path.join(local, ADAPTER_CONFIG)).catch(() => null))) {
      const holder = await whileDatabaseDown(() => resolveNode(ctx.prisma, c.nodeName, "checkpoint holder"), { signal: ctx.signal });
      const client = tinkerClientFor(holder, warn);
      const file = path.join(dir, `.${name}.download-${process.pid}`);
      await mkdir(dir, { recursive: true });
      try {
        await client.start(["envace-export"]);
        const where = await checkpointArchiveLocation(client, c.samplerPath, { signal: ctx.signal });
        const bytes = await downloadArchive(where, file, { signal: ctx.signal });
        await unpackAdapter(file, local, { baseModel: c.baseModel, requireCompleteMarker: client.profile === "tinker" });
        await ctx.log("info", `exported ${describeCheckpoint(c)} from node "${holder.name}" as a LoRA adapter (${bytes} bytes) into ${local}`);
      } catch (e) {
        // A 404 about the checkpoint means it is gone; a bare FastAPI "Not Found" is a server without the route.
        const message = (e as Error).message;
        if ((e as { status?: unknown }).status === 404 && /"detail"\s*:\s*"Not Found"/.test(message)) {
          throw new Error(`node "${holder.name}" has no checkpoint archive route (${message}): it cannot export the checkpoint as a LoRA adapter`);
        }
        if ((e as { status?: unknown }).status === 404) return lost(message);
        throw e;
      } finally {
        client.close();
        await rm(file, { force: true });
      }
    }
    const serverPath = path.join(node.settings.lora.serverAdapterDir ?? dir, name);
    const how = await loadLoraAdapter(vllm, name, serverPath, ctx.signal);
    if (!(await servedModels(vllm, ctx.signal)).includes(name)) throw new Error(`node "${node.name}" answered the adapter load of ${name} but does not list it under /v1/models`);
    await ctx.log("info", `${describeCheckpoint(c)} ${how === "loaded" ? "loaded" : "was already loaded"} on node "${node.name}" as LoRA adapter ${name} (from ${serverPath})`);
    return (adapterReady = name);
  }

  /** Notes when a generation finds the checkpoint missing (asample 404 on SkyRL tx), then fails it as before. */
  const watching = (p: PolicyClient): PolicyClient => ({
    generate: (req: GenerateRequest) =>
      p.generate(req).catch((e: unknown) => {
        if (checkpointMissing(e)) sawMissing = true;
        throw e;
      }),
  });

  return {
    async open() {
      if (opened) return opened;
      sawMissing = false;
      if (checkpoint?.via === "adapter") {
        const name = await ensureAdapter(checkpoint);
        opened = { policy: samplingPolicy(env, { protocol: "chat", chat: chatClientFor(node, name) }) };
      } else if (node.kind === "openai") {
        opened = { policy: samplingPolicy(env, { protocol: "chat", chat: chatClientFor(node, config.policy.model) }) };
      } else {
        // Nothing is trained: no LoRA model is created, the base model or the checkpoint is sampled through a sampling session.
        tinker = checkpoint ? await openCheckpointSampler(checkpoint) : await trainingPolicyFor(node, config.policy, undefined, warn, { sampleOnly: true });
        opened = { policy: watching(samplingPolicy(env, { protocol: "tinker", policy: tinker })), renderer: tinker.renderer };
      }
      return opened;
    },
    close() {
      tinker?.close();
      tinker = null;
      opened = null;
    },
    suspect: () => sawMissing,
    async recheck() {
      if (!checkpoint || checkpoint.via !== "sampler" || !sawMissing) return;
      this.close();
      const again = await openCheckpointSampler(checkpoint); // throws CheckpointLostError when it is gone
      again.close();
      sawMissing = false;
    },
  };
}

/** One token from the open sampling session: the node can sample what it was opened on. */
async function probe(policy: TinkerPolicy): Promise<void> {
  await policy.generate({ role: "act", messages: [{ role: "user", content: "Hello" }], sampling: { temperature: 1, topP: 1, maxTokens: 1 } });
}
