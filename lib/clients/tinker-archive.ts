/**
 * A sampler checkpoint's archive — the trained LoRA adapter in PEFT format — from the Tinker-compatible
 * server that holds it, asked for as the SDK's RestClient.get_checkpoint_archive_url asks:
 * `GET /api/v1/training_runs/{training_run_id}/checkpoints/{checkpoint_id}/archive`, redirects not followed,
 * answers a 302 to a (signed) download URL with an `Expires` header, or 200 `{url, expires}`; a 503 means
 * the server is still preparing it (the SDK retries every 30 s, six times).
 *
 * - Hosted Tinker: checkpoint ids are "sampler_weights/<name>" (ParsedCheckpointTinkerPath of
 *   tinker://<run>/sampler_weights/<name>); the archive is a tar with adapter_config.json,
 *   adapter_model.safetensors and an empty checkpoint_complete marker, at a signed storage URL.
 * - SkyRL tx: sampler checkpoints are named "<name>" alone (its paths read tinker://<model>/<name>); the
 *   302 points at its own `/download` route, which serves a .tar.gz of adapter_model.safetensors and
 *   adapter_config.json (skyrl/tinker/api.py, skyrl/utils/storage.py).
 * The embedded node keeps full weights of its tiny model, not adapters, and has no archive route.
 */
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { z } from "zod";
import { nodeEndpoint } from "../node-url";
import type { TinkerClient } from "./tinker-client";

export interface ArchiveLocation {
  url: string;
  expires: Date | null;
  /** Headers for the download: the node's own credentials when the URL is on the node, none for a signed URL elsewhere. */
  headers: Record<string, string>;
}

const jsonLocation = z.object({ url: z.string().min(1), expires: z.union([z.string(), z.number()]).nullish() });

/** A sampler path's training run id and checkpoint name (tinker://<run>/sampler_weights/<name> or SkyRL's tinker://<run>/<name>). */
export function parseSamplerPath(samplerPath: string): { trainingRunId: string; name: string } {
  const m = /^tinker:\/\/([^/]+)\/(?:sampler_weights\/)?([^/]+)$/.exec(samplerPath);
  if (!m) throw new Error(`"${samplerPath}" is not a sampler checkpoint path (tinker://<run>/sampler_weights/<name>)`);
  return { trainingRunId: m[1]!, name: m[2]! };
}

/** The checkpoint id of the archive route, as the server names its sampler checkpoints. */
export function archiveCheckpointId(profile: string, samplerPath: string): string {
  const { name } = parseSamplerPath(samplerPath);
  return profile.startsWith("skyrl") ? name : `sampler_weights/${name}`;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/** Where the archive of `samplerPath` can be downloaded from. `client` must be started (its profile known). */
export async function checkpointArchiveLocation(
  client: TinkerClient,
  samplerPath: string,
  opts: { signal?: AbortSignal; retryDelayMs?: number; tries?: number } = {},
): Promise<ArchiveLocation> {
  const { trainingRunId } = parseSamplerPath(samplerPath);
  // Each id one or more path segments, joined onto the node's normal-form base URL (lib/node-url.ts).
  const url = nodeEndpoint(client.baseUrl, "api/v1/training_runs", trainingRunId, "checkpoints", archiveCheckpointId(client.profile, samplerPath), "archive");
  const tries = opts.tries ?? 6;
  const where = `node "${client.nodeName}": GET ${url.slice(client.baseUrl.length)}`;
  for (let attempt = 1; ; attempt++) {
    const { fetch, headers } = await client.rest();
    const res = await fetch(url, { headers: { ...headers, accept: "application/json" }, redirect: "manual", signal: opts.signal });
    const own = (target: string) => (new URL(target, url).origin === new URL(client.baseUrl).origin ? headers : {});
    if (res.status === 302 || res.status === 303 || res.status === 307) {
      await res.arrayBuffer().catch(() => undefined);
      const location = res.headers.get("location");
      if (!location) throw new Error(`${where}: ${res.status} without a Location`);
      const target = new URL(location, url).toString();
      const expires = res.headers.get("expires");
      return { url: target, expires: expires && !Number.isNaN(Date.parse(expires)) ? new Date(expires) : null, headers: own(target) };
    }
    const text = await res.text().catch(() => "");
    if (res.status === 503 && attempt < tries) {
      await sleep(opts.retryDelayMs ?? 30_000, opts.signal);
      continue;
    }
    if (res.ok) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`${where}: reply is not JSON: ${text.slice(0, 200)}`);
      }
      const parsed = jsonLocation.safeParse(body);
      if (!parsed.success) throw new Error(`${where}: unexpected reply (${parsed.error.issues[0]?.message ?? "no url"})`);
      const target = new URL(parsed.data.url, url).toString();
      const e = parsed.data.expires;
      return { url: target, expires: e == null ? null : new Date(typeof e === "number" ? e * 1000 : e), headers: own(target) };
    }
    throw new ArchiveError(`${where}: HTTP ${res.status}${text ? ` ${text.slice(0, 300)}` : ""}`, res.status);
  }
}

export class ArchiveError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = "ArchiveError";
  }
}

/** Download an archive to `file`, streaming (adapters of large models are hundreds of MB); at most `maxBytes`. */
export async function downloadArchive(location: ArchiveLocation, file: string, opts: { signal?: AbortSignal; maxBytes?: number; fetch?: typeof fetch } = {}): Promise<number> {
  const res = await (opts.fetch ?? fetch)(location.url, { headers: location.headers, signal: opts.signal });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => "");
    throw new ArchiveError(`downloading the checkpoint archive: HTTP ${res.status}${text ? ` ${text.slice(0, 200)}` : ""}`, res.status);
  }
  const max = opts.maxBytes ?? 64 * 1024 ** 3;
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(bytes > max ? new Error(`the checkpoint archive is larger than ${max} bytes`) : null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as unknown as WebReadableStream), count, createWriteStream(file), { signal: opts.signal });
  } catch (e) {
    await rm(file, { force: true });
    throw e;
  }
  return bytes;
}
