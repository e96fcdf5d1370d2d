/**
 * An S3-compatible archive store (AWS S3, MinIO, Ceph RGW, R2, …) for lib/turn-archive.ts: SigV4-signed
 * PUT / GET / HEAD / DELETE over node:http(s) (lib/s3-sigv4.ts), no SDK. Objects are
 * `<prefix><runId>/<file>` in one bucket, addressed path-style (`<endpoint>/<bucket>/<key>`, the default
 * with a custom endpoint) or virtual-hosted (`<bucket>.<endpoint host>/<key>`, the default on AWS).
 *
 * A write spools the producer's bytes to a temporary file (hashing them on the way), then uploads it:
 * one PUT whose x-amz-content-sha256 is the file's SHA-256 (the store checks the bytes it got against
 * it), or a multipart upload for files above `partBytes` (S3 refuses single PUTs above 5 GB; a 470-step
 * paper-scale run archives ~21 GB). The secret key only ever enters HMACs: it is in no URI, log line,
 * error message or enumerable property.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ArchiveStore } from "./turn-archive";
import { EMPTY_SHA256, encodeKeyPath, signV4, uriEncode, type SigV4Credentials } from "./s3-sigv4";

export interface S3StoreConfig {
  /** http(s)://host[:port][/base path]; default https://s3.<region>.amazonaws.com */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Prepended to every key ("team-a/archive/"); a trailing slash is added when missing. */
  prefix?: string;
  addressing?: "path" | "virtual";
  credentials: SigV4Credentials;
  /** Above this size a write becomes a multipart upload of parts this size (min 5 MiB). Default 64 MiB. */
  partBytes?: number;
  /** Where writes spool before upload. Default: the OS temp folder. */
  spoolDir?: string;
  /** DNS override (tests of virtual-hosted addressing on 127.0.0.1). */
  lookup?: LookupFunction;
  /** Per-request socket inactivity limit, ms. Default 120 s. */
  timeoutMs?: number;
}

export class S3Error extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "S3Error";
  }
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const MIN_PART = 5 << 20;

/** The S3 store from the environment, or null when ENVACE_ARCHIVE_S3_BUCKET is unset. Throws on a half-made configuration. */
export function s3ConfigFromEnv(env: Record<string, string | undefined> = process.env): S3StoreConfig | null {
  const bucket = env.ENVACE_ARCHIVE_S3_BUCKET?.trim();
  if (!bucket) return null;
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId || !secretAccessKey) throw new Error("ENVACE_ARCHIVE_S3_BUCKET is set but AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not");
  const addressing = env.ENVACE_ARCHIVE_S3_ADDRESSING?.trim();
  if (addressing && addressing !== "path" && addressing !== "virtual") throw new Error(`ENVACE_ARCHIVE_S3_ADDRESSING must be "path" or "virtual", not ${JSON.stringify(addressing)}`);
  const config: S3StoreConfig = {
    endpoint: env.ENVACE_ARCHIVE_S3_ENDPOINT?.trim() || undefined,
    bucket,
    region: env.ENVACE_ARCHIVE_S3_REGION?.trim() || env.AWS_REGION?.trim() || "us-east-1",
    prefix: env.ENVACE_ARCHIVE_S3_PREFIX?.trim() || undefined,
    addressing: (addressing as "path" | "virtual" | undefined) || undefined,
    credentials: { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN?.trim() ? { sessionToken: env.AWS_SESSION_TOKEN.trim() } : {}) },
  };
  validate(config);
  return config;
}

function validate(config: S3StoreConfig): void {
  if (!BUCKET.test(config.bucket)) throw new Error(`S3 bucket name ${JSON.stringify(config.bucket)} is not valid (3-63 of a-z 0-9 . -)`);
  if (!/^[a-z0-9-]+$/.test(config.region)) throw new Error(`S3 region ${JSON.stringify(config.region)} is not valid`);
  if (config.endpoint) {
    let url: URL;
    try {
      url = new URL(config.endpoint);
    } catch {
      throw new Error(`ENVACE_ARCHIVE_S3_ENDPOINT ${JSON.stringify(config.endpoint)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`ENVACE_ARCHIVE_S3_ENDPOINT must be http(s), not ${url.protocol}`);
    if (url.search || url.hash || url.username || url.password) throw new Error("ENVACE_ARCHIVE_S3_ENDPOINT must not carry a query, fragment or credentials");
  }
  if (config.partBytes !== undefined && !(config.partBytes >= MIN_PART)) throw new Error(`S3 part size must be at least ${MIN_PART} bytes`);
}

interface Target {
  protocol: "http:" | "https:";
  hostname: string;
  port: number | null;
  /** The Host header (with the port when it is not the default). */
  host: string;
  /** URI-encoded path up to and including the bucket (path-style) or the endpoint's base path (virtual). */
  base: string;
}

function targetOf(config: S3StoreConfig): Target {
  const url = new URL(config.endpoint ?? `https://s3.${config.region}.amazonaws.com`);
  const addressing = config.addressing ?? (config.endpoint ? "path" : "virtual");
  const basePath = url.pathname.replace(/\/+$/, "");
  const hostname = addressing === "virtual" ? `${config.bucket}.${url.hostname}` : url.hostname;
  const port = url.port ? Number(url.port) : null;
  return {
    protocol: url.protocol as "http:" | "https:",
    hostname,
    port,
    host: port ? `${hostname}:${port}` : hostname,
    base: addressing === "virtual" ? basePath : `${basePath}/${encodeKeyPath(config.bucket)}`,
  };
}

/** The text of an S3 XML error's <Code> and <Message>, when the body is one. */
function xmlField(body: string, field: string): string | null {
  const m = new RegExp(`<${field}>([^<]*)</${field}>`).exec(body);
  return m ? m[1]!.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&") : null;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export function s3Store(input: S3StoreConfig): ArchiveStore & { remove(key: string): Promise<void> } {
  validate(input);
  const target = targetOf(input);
  const { accessKeyId, secretAccessKey, sessionToken } = input.credentials;
  // Kept in this closure only: the returned object has no property that reaches it.
  const credentials: SigV4Credentials = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
  const prefix = input.prefix ? input.prefix.replace(/^\/+/, "").replace(/\/*$/, "/") : "";
  const partBytes = input.partBytes ?? 64 << 20;
  const client = target.protocol === "https:" ? https : http;
  const agent = new client.Agent({ keepAlive: true, maxSockets: 8 });
  const timeoutMs = input.timeoutMs ?? 120_000;

  const objectKey = (key: string) => {
    if (!key || key.split("/").some((s) => s === "" || s === "." || s === "..")) throw new Error(`archive key ${JSON.stringify(key)} is not a plain relative key`);
    return `${prefix}${key}`;
  };
  const describe = (key: string) => `s3://${input.bucket}/${objectKey(key)}`;

  /** One signed request; resolves with the response once its status is in; the caller consumes the body. */
  function request(
    method: string,
    key: string | null,
    opts: { query?: [string, string][]; body?: Buffer | (() => Readable); length?: number; payloadHash?: string; headers?: Record<string, string> } = {},
  ): Promise<http.IncomingMessage> {
    const path = `${target.base}/${key === null ? "" : encodeKeyPath(objectKey(key))}`;
    const payloadHash = opts.payloadHash ?? (Buffer.isBuffer(opts.body) ? crypto.createHash("sha256").update(opts.body).digest("hex") : EMPTY_SHA256);
    const length = Buffer.isBuffer(opts.body) ? opts.body.length : (opts.length ?? 0);
    const headers: Record<string, string> = { ...opts.headers, "x-amz-content-sha256": payloadHash };
    if (method === "PUT" || method === "POST") headers["content-length"] = String(length);
    const signed = signV4({ method, host: target.host, path, query: opts.query, headers, payloadHash }, credentials, { region: input.region, service: "s3", date: new Date() });
    const search = opts.query?.length ? `?${opts.query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join("&")}` : "";
    return new Promise((resolve, reject) => {
      const req = client.request(
        { method, protocol: target.protocol, hostname: target.hostname, port: target.port ?? undefined, path: path + search, headers: signed.headers, agent, lookup: input.lookup, timeout: timeoutMs },
        resolve,
      );
      req.on("timeout", () => req.destroy(new Error(`S3 ${method} ${key === null ? "" : describe(key)}: no answer within ${timeoutMs} ms`)));
      req.on("error", reject);
      if (opts.body === undefined) req.end();
      else if (Buffer.isBuffer(opts.body)) req.end(opts.body);
      else pipeline(opts.body(), req).catch((err) => req.destroy(err as Error));
    });
  }

  /** Throws the S3 error of a non-2xx response (its body read for <Code>/<Message>). */
  async function expectOk(res: http.IncomingMessage, what: string): Promise<void> {
    if (res.statusCode! >= 200 && res.statusCode! < 300) return;
    const body = (await readAll(res).catch(() => Buffer.alloc(0))).toString("utf8");
    const code = xmlField(body, "Code");
    const message = xmlField(body, "Message");
    throw new S3Error(`S3 ${what}: HTTP ${res.statusCode}${code ? ` ${code}` : ""}${message ? `: ${message}` : ""}`, res.statusCode!, code);
  }

  async function putFile(key: string, file: string, size: number, sha256: string): Promise<void> {
    if (size <= partBytes) {
      const res = await request("PUT", key, { body: () => fs.createReadStream(file), length: size, payloadHash: sha256 });
      await expectOk(res, `PUT ${describe(key)}`);
      res.resume();
      return;
    }
    const started = await request("POST", key, { query: [["uploads", ""]], body: Buffer.alloc(0) });
    await expectOk(started, `start multipart upload of ${describe(key)}`);
    const uploadId = xmlField((await readAll(started)).toString("utf8"), "UploadId");
    if (!uploadId) throw new S3Error(`S3 start multipart upload of ${describe(key)}: no UploadId in the answer`, started.statusCode!, null);
    try {
      const etags: string[] = [];
      for (let n = 1, offset = 0; offset < size; n++, offset += partBytes) {
        const end = Math.min(size, offset + partBytes) - 1;
        const hash = crypto.createHash("sha256");
        await pipeline(fs.createReadStream(file, { start: offset, end }), hash);
        const res = await request("PUT", key, {
          query: [["partNumber", String(n)], ["uploadId", uploadId]],
          body: () => fs.createReadStream(file, { start: offset, end }),
          length: end - offset + 1,
          payloadHash: hash.digest("hex"),
        });
        await expectOk(res, `PUT part ${n} of ${describe(key)}`);
        res.resume();
        const etag = res.headers.etag;
        if (!etag) throw new S3Error(`S3 PUT part ${n} of ${describe(key)}: no ETag`, res.statusCode!, null);
        etags.push(etag);
      }
      const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
      const done = await request("POST", key, { query: [["uploadId", uploadId]], body: Buffer.from(xml, "utf8"), headers: { "content-type": "application/xml" } });
      await expectOk(done, `complete multipart upload of ${describe(key)}`);
      // S3 may answer 200 with an <Error> body when completing fails late.
      const answer = (await readAll(done)).toString("utf8");
      if (/<Error>/.test(answer)) throw new S3Error(`S3 complete multipart upload of ${describe(key)}: ${xmlField(answer, "Code") ?? "error"}: ${xmlField(answer, "Message") ?? ""}`, done.statusCode!, xmlField(answer, "Code"));
    } catch (err) {
      const aborted = await request("DELETE", key, { query: [["uploadId", uploadId]] }).catch(() => null);
      aborted?.resume();
      throw err;
    }
  }

  return {
    uri: (key) => describe(key),

    async write(key, produce) {
      const dir = await fs.promises.mkdtemp(path.join(input.spoolDir ?? os.tmpdir(), "envace-s3-"));
      const file = path.join(dir, "spool");
      try {
        const out = fs.createWriteStream(file);
        const hash = crypto.createHash("sha256");
        let size = 0;
        // Hash what the producer writes, as it writes it.
        const tee = new PassThrough();
        tee.on("data", (c: Buffer) => {
          hash.update(c);
          size += c.length;
        });
        const spooled = pipeline(tee, out);
        try {
          await produce(tee);
        } catch (err) {
          // A producer that fails (a database error mid-archive) uploads nothing and leaves no open spool file.
          tee.destroy(err as Error);
          await spooled.catch(() => {});
          throw err;
        }
        tee.end();
        await spooled;
        await putFile(key, file, size, hash.digest("hex"));
      } finally {
        await fs.promises.rm(dir, { recursive: true, force: true });
      }
    },

    read(key) {
      const out = new PassThrough();
      request("GET", key)
        .then(async (res) => {
          await expectOk(res, `GET ${describe(key)}`);
          await pipeline(res, out);
        })
        .catch((err) => out.destroy(err as Error));
      return out;
    },

    async exists(key) {
      const res = await request("HEAD", key);
      res.resume();
      if (res.statusCode === 404) return false;
      if (res.statusCode! >= 200 && res.statusCode! < 300) return true;
      throw new S3Error(`S3 HEAD ${describe(key)}: HTTP ${res.statusCode}`, res.statusCode!, null);
    },

    async remove(key) {
      const res = await request("DELETE", key);
      await expectOk(res, `DELETE ${describe(key)}`);
      res.resume();
    },
  };
}
