/**
 * The checkpoint-archive contract as the Tinker SDK's RestClient speaks it, against a hosted-Tinker-shaped
 * archive route (503 while preparing, then a 302 to a signed storage URL with Expires, or 200 {url,
 * expires}) and SkyRL tx's naming of sampler checkpoints; the signed URL never gets the API key.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapterArchive, startSignedStorage, type SignedStorage } from "../../test/doubles/tinker-archive";
import { archiveCheckpointId, checkpointArchiveLocation, downloadArchive, parseSamplerPath } from "./tinker-archive";
import type { TinkerClient } from "./tinker-client";

let storage: SignedStorage;
let hosted: http.Server;
let hostedUrl = "";
const seen: { path: string; apiKey: string | undefined; redirect: string | undefined }[] = [];
let busy = 0;
let json = false;
const archive = adapterArchive({ rank: 8, style: "hosted" });

/** What the client needs of a started TinkerClient here: where, which server, and its credentials. */
const client = (profile: string): TinkerClient =>
  ({ baseUrl: hostedUrl, nodeName: "tinker", profile, rest: async () => ({ fetch, headers: { "x-api-key": "tml-secret" } }) }) as unknown as TinkerClient;

beforeAll(async () => {
  storage = await startSignedStorage();
  hosted = http.createServer((req, res) => {
    seen.push({ path: req.url ?? "", apiKey: req.headers["x-api-key"] as string | undefined, redirect: req.headers.accept as string | undefined });
    if (!/^\/api\/v1\/training_runs\/run-1\/checkpoints\/sampler_weights\/step-40\/archive$/.test(req.url ?? "")) {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end(JSON.stringify({ detail: "checkpoint not found" }));
    }
    if (busy > 0) {
      busy--;
      res.writeHead(503, { "content-type": "application/json" });
      return res.end(JSON.stringify({ detail: "archive is being created" }));
    }
    const url = storage.sign(archive);
    if (json) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ url, expires: "2026-12-24T10:00:00Z" }));
    }
    res.writeHead(302, { location: url, expires: "Thu, 24 Dec 2026 10:00:00 GMT" });
    res.end();
  });
  await new Promise<void>((r) => hosted.listen(0, "127.0.0.1", r));
  hostedUrl = `http://127.0.0.1:${(hosted.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await storage.close();
  await new Promise<void>((r) => hosted.close(() => r()));
});

describe("checkpoint archives", () => {
  it("names sampler checkpoints as each server does", () => {
    expect(parseSamplerPath("tinker://run-1/sampler_weights/step-40")).toEqual({ trainingRunId: "run-1", name: "step-40" });
    expect(parseSamplerPath("tinker://model_ab12/step-40")).toEqual({ trainingRunId: "model_ab12", name: "step-40" });
    expect(archiveCheckpointId("tinker", "tinker://run-1/sampler_weights/step-40")).toBe("sampler_weights/step-40");
    expect(archiveCheckpointId("skyrl-jax", "tinker://model_ab12/step-40")).toBe("step-40");
    expect(() => parseSamplerPath("tinker://run-1/weights/a/b")).toThrow(/not a sampler checkpoint path/);
  });

  it("waits out 503s, follows the 302 to the signed URL without the API key, and downloads the archive", async () => {
    busy = 2;
    const where = await checkpointArchiveLocation(client("tinker"), "tinker://run-1/sampler_weights/step-40", { retryDelayMs: 10 });
    expect(seen.slice(-3).map((s) => s.path)).toEqual(Array(3).fill("/api/v1/training_runs/run-1/checkpoints/sampler_weights/step-40/archive"));
    expect(seen.at(-1)!.apiKey).toBe("tml-secret");
    expect(where.url.startsWith(storage.url)).toBe(true);
    expect(where.expires?.toISOString()).toBe("2026-12-24T10:00:00.000Z");
    expect(where.headers).toEqual({});
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "envace-archive-")), "a.tar");
    expect(await downloadArchive(where, file)).toBe(archive.length);
    expect(readFileSync(file).equals(archive)).toBe(true);
    expect(storage.requests.at(-1)!.apiKey).toBe(false);
  });

  it("takes the 200 {url, expires} answer too, and names the node and status of a refusal", async () => {
    json = true;
    const where = await checkpointArchiveLocation(client("tinker"), "tinker://run-1/sampler_weights/step-40");
    expect(where.url.startsWith(storage.url)).toBe(true);
    expect(where.expires?.toISOString()).toBe("2026-12-24T10:00:00.000Z");
    json = false;
    await expect(checkpointArchiveLocation(client("tinker"), "tinker://run-1/sampler_weights/gone")).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('node "tinker": GET /api/v1/training_runs/run-1/checkpoints/sampler_weights/gone/archive: HTTP 404'),
    });
    busy = 5;
    await expect(checkpointArchiveLocation(client("tinker"), "tinker://run-1/sampler_weights/step-40", { retryDelayMs: 1, tries: 3 })).rejects.toMatchObject({ status: 503 });
    busy = 0;
  });

  it("joins the route onto the node's base URL: a run id of \"..\" cannot climb out of it", async () => {
    const before = seen.length;
    await expect(checkpointArchiveLocation(client("tinker"), "tinker://../sampler_weights/step-40", { tries: 1 })).rejects.toThrow(/not a path segment/);
    expect(seen.length).toBe(before);
  });

  it("refuses an expired signed URL as the storage answers it", async () => {
    const url = storage.sign(archive, -1);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "envace-archive-")), "a.tar");
    await expect(downloadArchive({ url, expires: null, headers: {} }, file)).rejects.toThrow(/HTTP 403 .*AccessDenied/);
  });
});
