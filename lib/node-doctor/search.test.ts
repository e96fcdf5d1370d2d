import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSearchDouble, type SearchDouble } from "../../test/doubles/search-node";
import { runDoctor } from ".";

let double: SearchDouble;
beforeAll(async () => {
  double = await startSearchDouble({ apiKey: "k", results: (q, _kl, base) => (q ? [{ title: "t", link: `${base}/pages/x`, snippet: "s" }] : []) });
});
afterAll(() => double.close());

describe("the node doctor on a search node (kind search)", () => {
  it("passes when a SerpAPI-shaped search answers with results", async () => {
    const report = await runDoctor({ kind: "search", url: double.url, apiKey: "k", nodeName: "serp" }, null);
    expect(report).toMatchObject({ kind: "search", ok: true, checks: [{ check: "search", protocol: "search", status: "ok", reason: "a search returned 1 results" }] });
    expect(double.searches.at(-1)).toMatchObject({ engine: "duckduckgo", output: "json" });
  });

  it("fails with the search API's reason on a wrong key, and on a server that is not a search API", async () => {
    const bad = await runDoctor({ kind: "search", url: double.url, apiKey: "wrong", nodeName: "serp" }, null);
    expect(bad.ok).toBe(false);
    expect(bad.checks[0].reason).toMatch(/answered HTTP 401: Invalid API key.*\(check the node's API key\)$/);
    const down = await runDoctor({ kind: "search", url: "http://127.0.0.1:1", nodeName: "serp" }, null, { timeoutMs: 2000 });
    expect(down).toMatchObject({ ok: false, checks: [{ status: "failed" }] });
  });
});
