import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddingsDouble, type EmbeddingsDouble } from "../../../../test/doubles/embeddings-node";
import { createEmbeddingClient, EmbeddingCallError } from "../../../clients/embeddings";
import { memoryExecutor } from "../run/memory";
import { EmbeddingCache, MemoryVector, MissingEmbedding, normalise } from "./vector";

// Fixed vectors: the top-k order and scores below are worked out by hand from them.
const VECTORS: Record<string, number[]> = {
  "user likes cats": [1, 0, 0],
  "user owns a dog": [0, 1, 0],
  "user lives in Paris": [0, 0, 1],
  "user has a kitten": [3, 4, 0],
  pets: [0.6, 0.8, 0],
  city: [0, 0, 2],
};

let double: EmbeddingsDouble;
let cache: EmbeddingCache;

beforeAll(async () => {
  double = await startEmbeddingsDouble({ model: "all-MiniLM-L6-v2", apiKey: "k", vectors: (t) => VECTORS[t] ?? [0.1, 0.1, 0.1] });
  cache = new EmbeddingCache(createEmbeddingClient({ baseUrl: double.url, apiKey: "k", model: "all-MiniLM-L6-v2", nodeName: "emb", sleep: async () => {} }));
});
afterAll(() => double.close());

/** Runs one call as the world does: fetch the vectors it needs, then execute. */
async function run(m: MemoryVector, name: string, kwargs: Record<string, unknown>): Promise<string> {
  const args = Object.entries(kwargs).map(([k, v]) => [k, typeof v === "number" && Number.isInteger(v) ? BigInt(v) : v] as [string, never]);
  await cache.ensure(m.textsToEmbed(args.map((a) => a[1])));
  return m.execute(name, [], args);
}

describe("MemoryAPI_vector (faiss IndexFlatIP over normalised vectors, top_k = 5)", () => {
  it("adds with sequential ids and returns upstream's texts", async () => {
    const m = new MemoryVector(cache);
    expect(await run(m, "archival_memory_add", { text: "user likes cats" })).toBe('{"id": 0}');
    expect(await run(m, "archival_memory_add", { text: "user owns a dog" })).toBe('{"id": 1}');
    expect(await run(m, "archival_memory_remove", { vec_id: 0 })).toBe('{"status": "ID 0 removed from store."}');
    expect(await run(m, "archival_memory_add", { text: "user lives in Paris" })).toBe('{"id": 2}');
    expect(await run(m, "archival_memory_remove", { vec_id: 7 })).toBe('{"error": "ID 7 not present in store."}');
    expect(await run(m, "archival_memory_update", { vec_id: "1", new_text: "x" })).toBe('{"error": "ID 1 not present in store."}');
    expect(await run(m, "archival_memory_retrieve_all", {})).toBe('{"result": [{"id": 1, "text": "user owns a dog"}, {"id": 2, "text": "user lives in Paris"}]}');
    expect(await run(m, "archival_memory_clear", {})).toBe('{"status": "Memory cleared."}');
    expect(await run(m, "archival_memory_add", { text: "user likes cats" })).toBe('{"id": 0}');
  });

  it("retrieves the top-k by cosine similarity, best first, scores as float32", async () => {
    const m = new MemoryVector(cache);
    for (const text of ["user likes cats", "user owns a dog", "user lives in Paris", "user has a kitten"]) await run(m, "core_memory_add", { text });
    // query "pets" = (0.6, 0.8, 0): kitten (0.6, 0.8, 0) → 1; dog (0, 1, 0) → 0.8; cats (1, 0, 0) → 0.6; Paris → 0.
    const out = JSON.parse(await run(m, "core_memory_retrieve", { query: "pets", top_k: 3 }));
    expect(out.result.map((r: { id: number }) => r.id)).toEqual([3, 1, 0]);
    expect(out.result.map((r: { similarity_score: number }) => r.similarity_score)).toEqual([Math.fround(1), Math.fround(0.8), Math.fround(0.6)]);
    expect(out.result[0].text).toBe("user has a kitten");
    // float32 scores print as Python prints float(np.float32): 0.800000011920929
    expect(await run(m, "core_memory_retrieve", { query: "pets", top_k: 2 })).toBe(
      '{"result": [{"id": 3, "similarity_score": 1.0, "text": "user has a kitten"}, {"id": 1, "similarity_score": 0.800000011920929, "text": "user owns a dog"}]}',
    );
    // default top_k is 5, capped by the store size
    expect(JSON.parse(await run(m, "core_memory_retrieve", { query: "city" })).result.map((r: { id: number }) => r.id)).toEqual([2, 0, 1, 3]); // ties (score 0) keep index order
    expect(await run(m, "core_memory_retrieve", { query: "pets", top_k: 0 })).toBe("Error during execution: Error: 'k > 0' failed");
    expect(await run(new MemoryVector(cache), "core_memory_retrieve", { query: "pets" })).toBe('{"result": []}');
  });

  it("keeps upstream's limits and argument errors", async () => {
    const m = new MemoryVector(cache);
    expect(await run(m, "core_memory_add", { text: "y".repeat(301) })).toBe('{"error": "Entry length exceeds maximum length of 300 characters."}');
    for (let i = 0; i < 7; i++) await run(m, "core_memory_add", { text: `fact ${i}` });
    expect(await run(m, "core_memory_add", { text: "one more" })).toBe('{"error": "Memory size exceeds maximum size of 7 entries."}');
    expect(await run(m, "core_memory_add", {})).toBe("Error during execution: MemoryAPI_vector.core_memory_add() missing 1 required positional argument: 'text'");
    expect(await run(m, "core_memory_update", { vec_id: 2, new_text: "user likes cats" })).toBe('{"status": "ID 2 updated."}');
    expect(m.contextText()).toContain('"2": "user likes cats"');
    expect(new MemoryVector(cache).contextText()).toBe("{}");
  });

  it("restores a snapshot (re-embedded in id order) as the next entry of a scenario sees it", async () => {
    const a = new MemoryVector(cache);
    await run(a, "archival_memory_add", { text: "user owns a dog" });
    await run(a, "archival_memory_add", { text: "user likes cats" });
    const b = new MemoryVector(cache);
    b.restore(a.snapshot());
    expect(await run(b, "archival_memory_add", { text: "user lives in Paris" })).toBe('{"id": 2}');
    expect(JSON.parse(await run(b, "archival_memory_retrieve", { query: "pets", top_k: 1 })).result[0].id).toBe(0);
  });

  it("asks for a text's vector before changing anything, so a call can be run again once it is fetched", async () => {
    // Upstream's call-string rewriting stores "LDL (bad" as "LDL(bad": the vector needed is the rewritten text's.
    const m = new MemoryVector(cache);
    const ex = memoryExecutor("t", m);
    const args = JSON.stringify({ text: "my LDL (bad cholesterol) is 130" });
    await cache.ensure(m.textsToEmbed(["my LDL (bad cholesterol) is 130"]));
    let missing = "";
    try {
      ex.execute("archival_memory_add", args);
    } catch (err) {
      missing = (err as MissingEmbedding).text;
    }
    expect(missing).toBe("my LDL(bad cholesterol) is 130");
    expect(m.snapshot().archival_memory).toEqual({ next_id: 0, store: [] });
    await cache.ensure([missing]);
    expect(ex.execute("archival_memory_add", args)).toBe('{"id": 0}');
    expect(m.archivalMemory.texts()).toEqual(["my LDL(bad cholesterol) is 130"]);
  });

  it("fetches each text once, in batches, and validates the node's replies", async () => {
    const before = double.requests.length;
    await cache.ensure(["user likes cats", "user likes cats", "brand new"]);
    expect(double.requests.slice(before)).toEqual([["brand new"]]);
    double.failNext(2);
    await cache.ensure(["after two 503s"]);
    const bad = createEmbeddingClient({ baseUrl: double.url, apiKey: "k", model: "other-model", nodeName: "emb", sleep: async () => {} });
    await expect(bad(["x"])).rejects.toThrow(EmbeddingCallError);
    await expect(bad(["x"])).rejects.toThrow(/embedding node "emb" \(model other-model\) answered 404: .*does not exist/);
    expect(() => cache.vector("never fetched")).toThrow(MissingEmbedding);
    expect(Array.from(normalise([3, 4]))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
  });
});
