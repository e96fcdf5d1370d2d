/**
 * vLLM's runtime LoRA routes are joined onto the node's base URL in its normal form (lib/node-url.ts): a
 * path prefix is kept, and a stored URL that is not in that form (a row from before URLs were checked)
 * is refused with the node's name before any request, instead of turning `/v1/models` into its query.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedModels } from "./vllm-lora";

let server: http.Server;
let base = "";
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ data: [{ id: "base-model" }, { id: "adapter-1", parent: "base-model" }] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("vLLM LoRA routes", () => {
  it("keeps the base URL's path prefix", async () => {
    seen.length = 0;
    expect(await servedModels({ name: "vllm", baseUrl: `${base}/prefix/` })).toEqual(["base-model", "adapter-1"]);
    expect(seen).toEqual(["/prefix/v1/models"]);
  });

  it("refuses a stored base URL with a query before requesting anything", async () => {
    seen.length = 0;
    await expect(servedModels({ name: "legacy", baseUrl: `${base}/arbitrary?x=` })).rejects.toThrow(/node "legacy": its base URL must not have a query/);
    expect(seen).toEqual([]);
  });
});
