/**
 * The S3 archive store against an in-test S3 server that verifies every SigV4 signature independently
 * (test/s3-server.ts): path-style and virtual-hosted addressing, multipart uploads, HEAD/DELETE, errors,
 * configuration from the environment, and that the secret key never shows.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestS3Server, type TestS3Server } from "../test/s3-server";
import { S3Error, s3ConfigFromEnv, s3Store, type S3StoreConfig } from "./s3-store";

const SECRET = "s3-test-secret/with+odd=chars";
const credentials = { accessKeyId: "AKIATESTKEY", secretAccessKey: SECRET };
const read = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};
const writeBytes = (data: Buffer) => async (out: NodeJS.WritableStream) => {
  for (let i = 0; i < data.length; i += 1 << 20) {
    if (!out.write(data.subarray(i, i + (1 << 20)))) await new Promise((r) => out.once("drain", r));
  }
};
/** Every host name to 127.0.0.1 (virtual-hosted addressing puts the bucket in the host name). */
const toLoopback = ((_host: string, options: { all?: boolean }, cb: (...a: unknown[]) => void) => {
  if (options?.all) cb(null, [{ address: "127.0.0.1", family: 4 }]);
  else cb(null, "127.0.0.1", 4);
}) as unknown as LookupFunction;

describe("s3Store", () => {
  let server: TestS3Server;
  let config: S3StoreConfig;
  beforeAll(async () => {
    server = await startTestS3Server({ bucket: "envace-archive", ...credentials, region: "eu-central-1" });
    config = { endpoint: server.url, bucket: "envace-archive", region: "eu-central-1", prefix: "team-a/archive", credentials };
  });
  afterAll(() => server.close());

  it("writes, heads, reads and deletes an object path-style, under its prefix", async () => {
    const store = s3Store(config);
    const data = crypto.randomBytes(300_000);
    expect(await store.exists("run-1/turns.jsonl.gz")).toBe(false);
    await store.write("run-1/turns.jsonl.gz", writeBytes(data));
    expect(server.objects.get("team-a/archive/run-1/turns.jsonl.gz")).toEqual(data);
    expect(await store.exists("run-1/turns.jsonl.gz")).toBe(true);
    expect(await read(store.read("run-1/turns.jsonl.gz"))).toEqual(data);
    expect(store.uri("run-1/turns.jsonl.gz")).toBe("s3://envace-archive/team-a/archive/run-1/turns.jsonl.gz");
    await store.remove("run-1/turns.jsonl.gz");
    expect(await store.exists("run-1/turns.jsonl.gz")).toBe(false);
    const methods = server.log.filter((l) => l.key.startsWith("team-a/archive/run-1/")).map((l) => `${l.method} ${l.status} ${l.style}`);
    expect(methods).toEqual(["HEAD 404 path", "PUT 200 path", "HEAD 200 path", "GET 200 path", "DELETE 204 path", "HEAD 404 path"]);
  });

  it("uploads nothing when the producer fails", async () => {
    const store = s3Store(config);
    const before = server.log.length;
    await expect(store.write("run-5/turns.jsonl.gz", async (out) => {
      out.write("partial");
      throw new Error("database went away");
    })).rejects.toThrow(/database went away/);
    expect(server.log.length).toBe(before);
    expect(server.objects.has("team-a/archive/run-5/turns.jsonl.gz")).toBe(false);
  });

  it("addresses the bucket in the host name when virtual-hosted", async () => {
    const store = s3Store({ ...config, endpoint: `http://s3.test.invalid:${server.port}`, addressing: "virtual", lookup: toLoopback });
    await store.write("run-2/manifest.json", async (out) => void out.write('{"a":1}\n'));
    expect(server.objects.get("team-a/archive/run-2/manifest.json")!.toString()).toBe('{"a":1}\n');
    expect((await read(store.read("run-2/manifest.json"))).toString()).toBe('{"a":1}\n');
    expect(server.log.filter((l) => l.key === "team-a/archive/run-2/manifest.json").every((l) => l.style === "virtual" && l.status === 200)).toBe(true);
  });

  it("uploads a file above the part size in parts, each signed with its own SHA-256", async () => {
    const store = s3Store({ ...config, partBytes: 5 << 20 });
    const data = crypto.randomBytes((12 << 20) + 123);
    const before = server.log.length;
    await store.write("run-3/turns.jsonl.gz", writeBytes(data));
    expect(server.objects.get("team-a/archive/run-3/turns.jsonl.gz")!.equals(data)).toBe(true);
    expect(server.log.slice(before).map((l) => `${l.method} ${l.query.join(",")} ${l.status}`)).toEqual([
      "POST uploads 200",
      "PUT partNumber,uploadId 200",
      "PUT partNumber,uploadId 200",
      "PUT partNumber,uploadId 200",
      "POST uploadId 200",
    ]);
  });

  it("fails with S3's error (never the secret) on a wrong key, a missing object or a missing bucket", async () => {
    const wrong = s3Store({ ...config, credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: "not-the-secret" } });
    const refused = await wrong.write("run-4/x", async (out) => void out.write("x")).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(S3Error);
    expect(refused).toMatchObject({ status: 403, code: "SignatureDoesNotMatch" });
    expect(server.objects.has("team-a/archive/run-4/x")).toBe(false);
    const store = s3Store(config);
    await expect(read(store.read("run-4/absent"))).rejects.toMatchObject({ status: 404, code: "NoSuchKey" });
    await expect(read(s3Store({ ...config, bucket: "other-bucket" }).read("run-4/x"))).rejects.toMatchObject({ status: 404, code: "NoSuchBucket" });
    // The secret is in no message, URI or property of the store.
    for (const text of [String((refused as Error).message), store.uri("run-4/x"), JSON.stringify(store), JSON.stringify(Object.entries(store))]) expect(text).not.toContain(SECRET);
    expect(() => store.uri("../escape")).toThrow(/not a plain relative key/);
  });

  it("the test server refuses an unsigned or tampered request (so the tests above can fail)", async () => {
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(`${server.url}/envace-archive/team-a/archive/run-1/x`, { method: "PUT", headers }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on("error", reject);
        req.end("body");
      });
    expect(await status({})).toBe(403);
    expect(await status({ authorization: `AWS4-HMAC-SHA256 Credential=AKIATESTKEY/20261202/eu-central-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${"0".repeat(64)}` })).toBe(403);
  });

  it("reads its configuration from the environment, refusing half of one", () => {
    expect(s3ConfigFromEnv({})).toBeNull();
    expect(() => s3ConfigFromEnv({ ENVACE_ARCHIVE_S3_BUCKET: "b-1" })).toThrow(/AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY/);
    const env = { ENVACE_ARCHIVE_S3_BUCKET: "b-1", AWS_ACCESS_KEY_ID: "AK", AWS_SECRET_ACCESS_KEY: "SK" };
    expect(s3ConfigFromEnv(env)).toEqual({ bucket: "b-1", region: "us-east-1", credentials: { accessKeyId: "AK", secretAccessKey: "SK" } });
    expect(
      s3ConfigFromEnv({ ...env, ENVACE_ARCHIVE_S3_ENDPOINT: "http://minio:9000", ENVACE_ARCHIVE_S3_REGION: "eu-west-1", ENVACE_ARCHIVE_S3_PREFIX: "p/", ENVACE_ARCHIVE_S3_ADDRESSING: "virtual", AWS_SESSION_TOKEN: "T" }),
    ).toEqual({ endpoint: "http://minio:9000", bucket: "b-1", region: "eu-west-1", prefix: "p/", addressing: "virtual", credentials: { accessKeyId: "AK", secretAccessKey: "SK", sessionToken: "T" } });
    expect(() => s3ConfigFromEnv({ ...env, ENVACE_ARCHIVE_S3_ADDRESSING: "dns" })).toThrow(/"path" or "virtual"/);
    expect(() => s3ConfigFromEnv({ ...env, ENVACE_ARCHIVE_S3_ENDPOINT: "ftp://x" })).toThrow(/http\(s\)/);
    expect(() => s3ConfigFromEnv({ ...env, ENVACE_ARCHIVE_S3_BUCKET: "Bad_Bucket" })).toThrow(/not valid/);
    expect(() => s3ConfigFromEnv({ ...env, AWS_SECRET_ACCESS_KEY: "SK", ENVACE_ARCHIVE_S3_ENDPOINT: "http://u:SK@x" })).toThrow(/credentials/);
  });
});
