import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSingleTurnCategory } from "./data";
import { BfclFileError } from "./files";
import { loadMemoryQuestions } from "../memory/data";

const fn = { name: "f", description: "F.", parameters: { type: "dict", properties: { x: { type: "integer", description: "X." } }, required: ["x"] } };
const entryLine = (id: string) => JSON.stringify({ id, question: [[{ role: "user", content: "?" }]], function: [fn] });

const created: string[] = [];
afterAll(() => created.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

function dataDir(files: Record<string, string>): string {
  const root = tempDir("bfcl-data-");
  for (const [name, text] of Object.entries(files)) {
    const full = path.join(root, "data", name);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return root;
}

describe("single-turn data loading", () => {
  it("loads entries with Python-typed possible answers", () => {
    const dir = dataDir({
      "BFCL_v4_simple_python.json": entryLine("simple_python_0") + "\n",
      // Written as text: JSON.stringify would print 1.0 as 1.
      "possible_answer/BFCL_v4_simple_python.json": '{"id": "simple_python_0", "ground_truth": [{"f": {"x": [1.0, 2]}}]}\n',
    });
    const [e] = loadSingleTurnCategory("simple_python", dir);
    expect(e.language).toBe("python");
    const values = ((e.possibleAnswer![0] as any).get("f") as any).get("x");
    expect(values).toEqual([1, 2n]);
    expect(typeof values[0]).toBe("number");
  });

  it("names the file and line of a malformed or invalid line", () => {
    const bad = dataDir({ "BFCL_v4_irrelevance.json": entryLine("irrelevance_0") + "\n{not json\n" });
    expect(() => loadSingleTurnCategory("irrelevance", bad)).toThrow(/BFCL_v4_irrelevance\.json:2: not valid JSON/);
    const invalid = dataDir({ "BFCL_v4_irrelevance.json": JSON.stringify({ id: "irrelevance_0", question: [], function: [] }) + "\n" });
    expect(() => loadSingleTurnCategory("irrelevance", invalid)).toThrow(/BFCL_v4_irrelevance\.json:1: question: /);
  });

  it("rejects answers that do not line up with the entries", () => {
    const dir = dataDir({
      "BFCL_v4_multiple.json": entryLine("multiple_0") + "\n",
      "possible_answer/BFCL_v4_multiple.json": JSON.stringify({ id: "multiple_9", ground_truth: [{ f: { x: [1] } }] }) + "\n",
    });
    expect(() => loadSingleTurnCategory("multiple", dir)).toThrow(/possible_answer\/BFCL_v4_multiple\.json:1: id multiple_9 where .*BFCL_v4_multiple\.json:1 has multiple_0/);
  });

  it("says what is missing and how to point at the data", () => {
    const empty = tempDir("bfcl-empty-");
    expect(() => loadSingleTurnCategory("live_simple", empty)).toThrow(BfclFileError);
    expect(() => loadSingleTurnCategory("live_simple", empty)).toThrow(/BFCL_v4_live_simple\.json is missing\. Set ENVACE_DATA_DIR/);
    expect(() => loadMemoryQuestions("memory_kv", empty)).toThrow(/BFCL_v4_memory\.json is missing/);
  });
});
