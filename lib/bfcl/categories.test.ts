import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../contracts/run-config";
import { bfclConfigProblem, bfclDataset, parseBfclDataset } from "./categories";
import { bfclNodeRefsOf } from "./not-run";

const errorsOf = (input: unknown) => {
  const r = parseRunConfig(input);
  return r.ok ? [] : r.errors;
};

describe("BFCL datasets (bfcl:<category or group>[,…])", () => {
  it("expands groups into categories in BFCL's order, without repeats, and sets the ones not run aside with the reason", () => {
    const r = parseBfclDataset("bfcl:memory,multi_turn_base,multi_turn");
    if (!r.ok) throw new Error(r.message);
    expect(r.selection.categories).toEqual(["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context", "memory_kv", "memory_vector", "memory_rec_sum"]);
    expect(r.selection.runnable).not.toContain("memory_vector");
    expect(r.selection.notRun).toEqual([{ category: "memory_vector", reason: expect.stringMatching(/all-MiniLM-L6-v2/) }]);
    const all = parseBfclDataset("bfcl:all");
    if (!all.ok) throw new Error(all.message);
    expect(all.selection.categories).toHaveLength(22);
    expect(all.selection.notRun.map((n) => n.category)).toEqual(["web_search_base", "web_search_no_snippet", "memory_vector"]);
  });

  it("names unknown items, and refuses a selection with nothing runnable, saying why", () => {
    expect(parseBfclDataset("bfcl:multi_turn,simple_cobol")).toEqual({ ok: false, message: expect.stringMatching(/unknown BFCL category or group "simple_cobol" \(groups: all, /) });
    expect(parseBfclDataset("bfcl:web_search")).toEqual({ ok: false, message: expect.stringMatching(/^nothing to run: web_search_base needs a search node/) });
    expect(bfclDataset(["multi_turn", "live"])).toBe("bfcl:multi_turn,live");
    // with the run's resources the categories run
    const both = parseBfclDataset("bfcl:agentic", { search: true, embeddings: true });
    expect(both.ok && both.selection).toMatchObject({ notRun: [], runnable: ["web_search_base", "web_search_no_snippet", "memory_kv", "memory_vector", "memory_rec_sum"] });
    const searchOnly = parseBfclDataset("bfcl:agentic", { search: true, embeddings: false });
    expect(searchOnly.ok && searchOnly.selection.notRun).toEqual([{ category: "memory_vector", reason: expect.stringMatching(/^needs an embedding node: set bfcl.embeddings/) }]);
  });

  it("validates at the config boundary: the form, the API and the worker get the same message on data.dataset", () => {
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:multi_turn,simple_python" } })).toEqual([]);
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:simple_cobol" } })).toEqual([{ path: "data.dataset", message: expect.stringMatching(/unknown BFCL category or group "simple_cobol"/) }]);
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:" } })[0]).toMatchObject({ path: "data.dataset", message: expect.stringMatching(/bfcl:<category or group>/) });
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:memory_vector" } })[0]).toMatchObject({ path: "data.dataset", message: expect.stringMatching(/nothing to run: memory_vector needs/) });
    // Training runs on the multi-turn categories.
    expect(errorsOf({ kind: "train", data: { dataset: "bfcl:multi_turn" } })).toEqual([]);
    expect(errorsOf({ kind: "train", data: { dataset: "bfcl:multi_turn_base,live_simple" } })).toEqual([
      { path: "data.dataset", message: expect.stringMatching(/BFCL training runs on the multi-turn categories only .*live_simple is for evaluation runs/) },
    ]);
    expect(bfclConfigProblem("bfcl:multi_turn", "train")).toBeNull();
    expect(bfclNodeRefsOf({ bfcl: { search: { node: "serp" }, embeddings: { node: "emb", model: "m" } } })).toEqual([
      { node: "serp", role: "bfcl.search" },
      { node: "emb", role: "bfcl.embeddings" },
    ]);
    expect(bfclNodeRefsOf({ bfcl: "damaged" })).toEqual([]);
    // bfcl.search / bfcl.embeddings make the categories runnable, and belong to BFCL datasets only
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:memory_vector" }, bfcl: { embeddings: { node: "vllm-emb", model: "sentence-transformers/all-MiniLM-L6-v2" } } })).toEqual([]);
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:web_search" }, bfcl: { search: { node: "serp" } } })).toEqual([]);
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:web_search" }, bfcl: { search: { node: "" } } })[0]).toMatchObject({ path: "bfcl.search.node" });
    expect(errorsOf({ kind: "eval", data: { dataset: "bfcl:web_search" }, bfcl: { search: { node: "serp", key: "x" } } })[0]).toMatchObject({ path: "bfcl.search" });
    expect(errorsOf({ kind: "eval", data: { dataset: "builtin:shop" }, bfcl: { search: { node: "serp" } } })).toEqual([{ path: "bfcl", message: expect.stringMatching(/for BFCL datasets/) }]);
  });
});
