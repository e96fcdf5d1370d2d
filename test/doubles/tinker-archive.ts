/**
 * TEST DOUBLE — checkpoint archives as Tinker servers make them, and a storage host serving them at
 * signed URLs:
 * - `adapterArchive`: a PEFT LoRA adapter (adapter_config.json + a real safetensors file with lora_A/lora_B
 *   tensors of the given rank) as a ustar archive the way Python's tarfile writes one — hosted Tinker's
 *   plain tar with its `checkpoint_complete` marker, or SkyRL tx's gzipped tar (`arcname=""`: a root
 *   directory entry, then the files) — and, for tests of the extractor, hostile members (links, paths
 *   outside the archive);
 * - `startSignedStorage`: an HTTP host that serves a blob only at its signed URL (a `sig` query that
 *   expires), refusing requests that carry the Tinker API key (a signed URL must not get it).
 */
import http from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export interface TarMember {
  name: string;
  /** "0" file (default), "5" directory, "2" symlink. */
  type?: "0" | "5" | "2";
  data?: Buffer | string;
  linkName?: string;
}

function header(m: TarMember, size: number): Buffer {
  const h = Buffer.alloc(512, 0);
  const put = (text: string, offset: number, length: number) => h.write(text.slice(0, length), offset, "utf8");
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, "0");
  put(m.name, 0, 100);
  put(octal((m.type ?? "0") === "5" ? 0o755 : 0o644, 8), 100, 7);
  put(octal(0, 8), 108, 7);
  put(octal(0, 8), 116, 7);
  put(octal(size, 12), 124, 11);
  put(octal(Math.floor(Date.now() / 1000), 12), 136, 11);
  h.fill(0x20, 148, 156);
  put(m.type ?? "0", 156, 1);
  if (m.linkName) put(m.linkName, 157, 100);
  put("ustar", 257, 6);
  put("00", 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  return h;
}

/** A tar archive of `members` (ustar, 512-byte blocks, two zero blocks at the end). */
export function tarOf(members: TarMember[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    const data = m.data === undefined ? Buffer.alloc(0) : Buffer.isBuffer(m.data) ? m.data : Buffer.from(m.data);
    parts.push(header(m, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A safetensors file: 8-byte little-endian header length, the JSON header, then the float32 data. */
export function safetensorsOf(tensors: Record<string, { shape: number[]; fill: number }>): Buffer {
  const meta: Record<string, unknown> = { __metadata__: { format: "pt" } };
  const blobs: Buffer[] = [];
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    const buf = Buffer.alloc(n * 4);
    for (let i = 0; i < n; i++) buf.writeFloatLE(t.fill, i * 4);
    meta[name] = { dtype: "F32", shape: t.shape, data_offsets: [offset, offset + buf.length] };
    offset += buf.length;
    blobs.push(buf);
  }
  const json = Buffer.from(JSON.stringify(meta));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, json, ...blobs]);
}

export interface AdapterArchiveOptions {
  rank: number;
  baseModel?: string | null;
  /** hosted: plain tar with checkpoint_complete; skyrl: .tar.gz with a root directory entry. */
  style: "hosted" | "skyrl";
  /** Extra members (hostile ones for the extractor's tests). */
  extra?: TarMember[];
  /** Leave out the weights file (an archive that is not an adapter). */
  withoutWeights?: boolean;
}

export function adapterArchive(opts: AdapterArchiveOptions): Buffer {
  const config = {
    peft_type: "LORA",
    r: opts.rank,
    lora_alpha: 32,
    target_modules: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    ...(opts.baseModel === null ? {} : { base_model_name_or_path: opts.baseModel ?? "Qwen/Qwen3-8B" }),
  };
  const weights = safetensorsOf({
    "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight": { shape: [opts.rank, 8], fill: 0.01 },
    "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight": { shape: [8, opts.rank], fill: 0 },
  });
  const files: TarMember[] = [
    { name: "adapter_config.json", data: JSON.stringify(config, null, 2) },
    ...(opts.withoutWeights ? [] : [{ name: "adapter_model.safetensors", data: weights }]),
    ...(opts.style === "hosted" ? [{ name: "checkpoint_complete", data: "" }] : []),
    ...(opts.extra ?? []),
  ];
  if (opts.style === "hosted") return tarOf(files);
  return gzipSync(tarOf([{ name: "./", type: "5" }, ...files]), { level: 0 });
}

export interface SignedStorage {
  url: string;
  /** A signed URL for `blob`, valid for `ttlMs`. */
  sign(blob: Buffer, ttlMs?: number): string;
  /** Requests made (path, whether an x-api-key header came along). */
  requests: { path: string; apiKey: boolean }[];
  close(): Promise<void>;
}

export async function startSignedStorage(): Promise<SignedStorage> {
  const blobs = new Map<string, { blob: Buffer; expires: number }>();
  const requests: SignedStorage["requests"] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    requests.push({ path: u.pathname, apiKey: req.headers["x-api-key"] !== undefined });
    const entry = blobs.get(`${u.pathname}?${u.searchParams.get("sig")}`);
    if (req.headers["x-api-key"] !== undefined) {
      res.writeHead(400, { "content-type": "application/xml" });
      return res.end("<Error><Code>InvalidArgument</Code><Message>Signed URLs take no other credentials</Message></Error>");
    }
    if (!entry || entry.expires < Date.now()) {
      res.writeHead(403, { "content-type": "application/xml" });
      return res.end("<Error><Code>AccessDenied</Code><Message>Request has expired or the signature does not match</Message></Error>");
    }
    res.writeHead(200, { "content-type": "application/x-tar", "content-length": String(entry.blob.length) });
    res.end(entry.blob);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    sign(blob, ttlMs = 15 * 60_000) {
      const path = `/tinker-checkpoints/${randomBytes(6).toString("hex")}/archive.tar`;
      const sig = randomBytes(12).toString("hex");
      blobs.set(`${path}?${sig}`, { blob, expires: Date.now() + ttlMs });
      return `${url}${path}?sig=${sig}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
