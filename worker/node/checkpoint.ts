/**
 * Checkpoint files for the tiny GPT: one directory per checkpoint with
 *   manifest.json  {format, config, tensors:[{name, shape, offset, length}], optimizer?:{step}, meta}
 *   weights.bin    float32 little-endian, tensors concatenated in manifest order
 *   optimizer.bin  (optional) AdamW first then second moments, same layout as weights.bin
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { type GPTConfig, paramShapes, validateConfig } from "./model";
import type { OptimizerState } from "./train";

export const CHECKPOINT_FORMAT = "envace-tiny-gpt-v1";

const manifestSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  config: z.object({
    vocabSize: z.number().int().positive(),
    contextLength: z.number().int().positive(),
    nLayer: z.number().int().positive(),
    nHead: z.number().int().positive(),
    dModel: z.number().int().positive(),
  }),
  tensors: z.array(z.object({ name: z.string(), shape: z.array(z.number().int().nonnegative()), offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() })),
  optimizer: z.object({ step: z.number().int().nonnegative() }).nullable().optional(),
  meta: z.record(z.unknown()).optional(),
});
export type CheckpointManifest = z.infer<typeof manifestSchema>;

export interface LoadedCheckpoint {
  config: GPTConfig;
  weights: Map<string, Float32Array>;
  optimizer: OptimizerState | null;
  meta: Record<string, unknown>;
}

function pack(cfg: GPTConfig, values: Map<string, Float32Array>): { buf: Buffer; tensors: CheckpointManifest["tensors"] } {
  const shapes = paramShapes(cfg);
  const total = shapes.reduce((n, [, s]) => n + s.reduce((a, b) => a * b, 1), 0);
  const all = new Float32Array(total);
  const tensors: CheckpointManifest["tensors"] = [];
  let offset = 0;
  for (const [name, shape] of shapes) {
    const v = values.get(name);
    const length = shape.reduce((a, b) => a * b, 1);
    if (!v || v.length !== length) throw new Error(`checkpoint: parameter ${name} is missing or has the wrong size`);
    all.set(v, offset);
    tensors.push({ name, shape, offset, length });
    offset += length;
  }
  return { buf: Buffer.from(all.buffer, all.byteOffset, all.byteLength), tensors };
}

function unpack(buf: Buffer, tensors: CheckpointManifest["tensors"], file: string): Map<string, Float32Array> {
  const floats = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const out = new Map<string, Float32Array>();
  for (const t of tensors) {
    if (t.offset + t.length > floats.length) throw new Error(`checkpoint ${file} is truncated at tensor ${t.name}`);
    out.set(t.name, floats.slice(t.offset, t.offset + t.length));
  }
  return out;
}

export async function saveCheckpoint(
  dir: string,
  cfg: GPTConfig,
  weights: Map<string, Float32Array>,
  optimizer: OptimizerState | null,
  meta: Record<string, unknown> = {},
): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await fs.mkdir(tmp, { recursive: true });
  const w = pack(cfg, weights);
  await fs.writeFile(path.join(tmp, "weights.bin"), w.buf);
  if (optimizer) {
    const m = pack(cfg, optimizer.m);
    const v = pack(cfg, optimizer.v);
    await fs.writeFile(path.join(tmp, "optimizer.bin"), Buffer.concat([m.buf, v.buf]));
  }
  const manifest: CheckpointManifest = { format: CHECKPOINT_FORMAT, config: cfg, tensors: w.tensors, optimizer: optimizer ? { step: optimizer.step } : null, meta };
  await fs.writeFile(path.join(tmp, "manifest.json"), JSON.stringify(manifest, null, 1));
  // Replace atomically so a reader never sees a half-written checkpoint.
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(path.dirname(dir), { recursive: true });
  await fs.rename(tmp, dir);
}

export async function checkpointExists(dir: string): Promise<boolean> {
  try {
    await fs.access(path.join(dir, "manifest.json"));
    return true;
  } catch {
    return false;
  }
}

export async function loadCheckpoint(dir: string, opts: { optimizer?: boolean } = {}): Promise<LoadedCheckpoint> {
  const manifestPath = path.join(dir, "manifest.json");
  const parsed = manifestSchema.safeParse(JSON.parse(await fs.readFile(manifestPath, "utf8")));
  if (!parsed.success) throw new Error(`checkpoint ${manifestPath} is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const manifest = parsed.data;
  const cfg = manifest.config;
  validateConfig(cfg);
  const weights = unpack(await fs.readFile(path.join(dir, "weights.bin")), manifest.tensors, "weights.bin");
  let optimizer: OptimizerState | null = null;
  if (opts.optimizer && manifest.optimizer) {
    const buf = await fs.readFile(path.join(dir, "optimizer.bin"));
    const half = buf.byteLength / 2;
    optimizer = {
      step: manifest.optimizer.step,
      m: unpack(buf.subarray(0, half), manifest.tensors, "optimizer.bin"),
      v: unpack(buf.subarray(half), manifest.tensors, "optimizer.bin"),
    };
  }
  return { config: cfg, weights, optimizer, meta: manifest.meta ?? {} };
}
