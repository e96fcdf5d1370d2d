/**
 * The memory back ends against upstream's: test/fixtures/bfcl/memory/memory-goldens.jsonl.gz was produced by
 * scripts/bfcl/st_goldens_memory.py, which runs BFCL's MemoryAPI_kv (rank_bm25 0.2.2) and MemoryAPI_rec_sum
 * with scripted calls built from the prerequisite conversations. Every call must return the same text (BM25+
 * scores to the last digit), direct BM25+ scores must be equal, and `pyLog` must equal Python's `math.log`
 * on the whole idf domain. The fixture refers to the conversations instead of copying them, so the call and
 * BM25 tests need the BFCL data (skipped with a message when it is absent).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { pyFloatRepr } from "../../../../lib/python/json";
import { bfclDataDir } from "../single-turn/files";
import { pySlice } from "../single-turn/pystr";
import { PyDict, pyJsonLoads, type PyValue } from "../single-turn/values";
import { createMemoryBackend, type MemoryKv, type MemoryRecSum } from "./backends";
import { Bm25Plus } from "./bm25";
import { loadMemoryQuestions, loadPrereqConversation, type MemoryScenario } from "./data";
import { pyLog } from "./pymath";

const FIXTURE = path.resolve(__dirname, "../../../../test/fixtures/bfcl/memory/memory-goldens.jsonl.gz");
const lines = gunzipSync(readFileSync(FIXTURE))
  .toString("utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => pyJsonLoads(l) as PyDict);
const field = (d: PyDict, k: string) => d.get(k) as PyValue;
const tokenize = (s: string) => s.replace(/_/g, " ").toLowerCase().split(/[\t-\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u).filter((t) => t !== "");

const hasData = existsSync(path.join(bfclDataDir(), "data", "BFCL_v4_memory.json"));
if (!hasData) console.warn(`BFCL data not found under ${bfclDataDir()}: skipping the memory call goldens (set ENVACE_DATA_DIR).`);

/** The generator's key: the first four lower-case words of a turn, then the suffix. */
function keyOf(text: string, suffix: PyValue): string {
  const words = (text.toLowerCase().match(/[a-z]+/g) ?? []).slice(0, 4);
  return (words.length ? words : ["turn"]).join("_") + "_" + String(suffix);
}

function scenarioData(scenario: MemoryScenario) {
  const entries = loadPrereqConversation("memory_kv", scenario);
  const turns = entries.flatMap((e) => e.turns.flatMap((t) => t.map((m) => m.content)));
  const questions = loadMemoryQuestions("memory_kv").filter((q) => q.scenario === scenario).map((q) => q.question[0][0].content);
  return { entries, turns, questions };
}

/** Resolves the generator's references to the data (see `Ref` in the generator). */
function resolve(v: PyValue, turns: string[], questions: string[]): PyValue {
  if (!(v instanceof PyDict) || v.size !== 1) return v;
  const [tag, raw] = v.entries()[0] as [string, PyValue];
  const a = raw as PyValue[];
  const n = (x: PyValue) => (x === null ? undefined : Number(x));
  switch (tag) {
    case "$t":
      return pySlice(turns[n(a[0])!], n(a[1]), n(a[2]));
    case "$t+":
      return turns[n(a[0])!] + (a[1] as string);
    case "$t*":
      return turns[n(a[0])!].repeat(n(a[1])!);
    case "$p+":
      return (a[0] as string) + pySlice(turns[n(a[1])!], n(a[2]), n(a[3]));
    case "$k":
      return keyOf(turns[n(a[0])!], a[1]);
    case "$q":
      return questions[Number(raw)];
    default:
      return v;
  }
}

const digest = (text: string) => createHash("sha1").update(text, "utf8").digest("hex").slice(0, 16);

describe("memory back ends match upstream", () => {
  it("math.log on every BM25+ idf argument", () => {
    const log = lines.find((d) => field(d, "kind") === "log")!;
    const values = field(log, "values") as PyValue[][];
    expect(values.length).toBeGreaterThan(800);
    const wrong = values.filter(([x, want]) => pyFloatRepr(pyLog(x as number)) !== want);
    expect(wrong).toEqual([]);
  });

  it.skipIf(!hasData)("every scripted call on the prerequisite conversations returns upstream's exact text", () => {
    const instances = new Map<string, MemoryKv | MemoryRecSum>();
    const data = new Map<string, ReturnType<typeof scenarioData>>();
    const mismatches: string[] = [];
    let calls = 0;
    for (const d of lines) {
      if (field(d, "kind") !== "call") continue;
      calls++;
      const scenario = field(d, "scenario") as MemoryScenario;
      if (!data.has(scenario)) data.set(scenario, scenarioData(scenario));
      const { turns, questions } = data.get(scenario)!;
      const key = `${field(d, "backend")}:${scenario}`;
      if (!instances.has(key)) instances.set(key, createMemoryBackend(field(d, "backend") as string));
      const args = (field(d, "args") as PyValue[]).map((a) => resolve(a, turns, questions));
      const kwargs = (field(d, "kwargs") as PyValue[][]).map(([k, v]) => [k as string, resolve(v, turns, questions)] as [string, PyValue]);
      const got = instances.get(key)!.execute(field(d, "method") as string, args, kwargs);
      const want = d.has("result") ? (field(d, "result") as string) : (field(d, "digest") as string);
      if ((d.has("result") ? got : digest(got)) !== want) mismatches.push(`${key} ${field(d, "method")}: got ${got.slice(0, 200)}; upstream ${want.slice(0, 200)}`);
    }
    expect(calls).toBeGreaterThan(800);
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it.skipIf(!hasData)("BM25+ scores over the prerequisite conversations, bit for bit", () => {
    const data = new Map<string, ReturnType<typeof scenarioData>>();
    let n = 0;
    for (const d of lines) {
      if (field(d, "kind") !== "bm25") continue;
      n++;
      const scenario = field(d, "scenario") as MemoryScenario;
      if (!data.has(scenario)) data.set(scenario, scenarioData(scenario));
      const { entries, questions } = data.get(scenario)!;
      const corpus = entries[Number(field(d, "entry"))].turns.flatMap((t) => t.map((m) => m.content));
      const bm25 = new Bm25Plus(corpus.map(tokenize));
      expect(bm25.getScores(tokenize(questions[Number(field(d, "question"))])).map(pyFloatRepr)).toEqual(field(d, "scores"));
    }
    expect(n).toBeGreaterThan(50);
  });
});
