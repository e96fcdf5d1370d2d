import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fullTextSha256 } from "../state";
import { FIXTURES, hasBfclData } from "../../../../test/fixtures/bfcl-data";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../../..");
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, ["--import", "tsx", path.join(here, "calls.ts"), ...args], { encoding: "utf8", cwd: repo, env });
const tmp = mkdtempSync(path.join(tmpdir(), "bfcl-cli-"));
const write = (name: string, text: string) => {
  const file = path.join(tmp, name);
  writeFileSync(file, text);
  return file;
};

describe("bfcl:calls", () => {
  it("prints one {id, turn, index, result} line per call with upstream's exact result", () => {
    const dataPresent = hasBfclData();
    const lines = readFileSync(path.join(FIXTURES, "edge-cases.jsonl"), "utf8").trim().split("\n");
    const cases = lines.filter((l) => dataPresent || !JSON.parse(l).long_context);
    const ids = new Set(cases.map((l) => JSON.parse(l).id as string));
    const out = run(["--cases", write("cases.jsonl", cases.join("\n") + "\n"), "--today", "2026-01-15"]);
    expect(out.status, out.stderr).toBe(0);
    const got = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const want = readFileSync(path.join(FIXTURES, "edge-expected.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((l) => ids.has(l.id));
    expect(got.length).toBe(want.length);
    got.forEach((line, i) => {
      expect(Object.keys(line)).toEqual(["id", "turn", "index", "result"]);
      const w = want[i];
      expect([line.id, line.turn, line.index]).toEqual([w.id, w.turn, w.index]);
      if (w.result !== undefined) expect(line.result).toBe(w.result);
      else expect(fullTextSha256(line.result)).toBe(w.result_sha256);
    });
  });

  it("names the file and line of a malformed case, and unknown classes", () => {
    const good = JSON.stringify({ id: "c1", involved_classes: ["MathAPI"], turns: [["add(a=1, b=2)"]] });
    const bad = write("bad.jsonl", `${good}\n{"id": "c2", "involved_classes": ["MathAPI"], "turns": [["add(" ]\n`);
    const out = run(["--cases", bad]);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain(`${bad}:2: not valid JSON`);
    expect(out.stdout).toBe("");

    const unknown = write("unknown.jsonl", JSON.stringify({ id: "c3", involved_classes: ["ShopAPI"], turns: [] }) + "\n");
    const out2 = run(["--cases", unknown]);
    expect(out2.stderr).toContain(`${unknown}:1: unknown classes ShopAPI`);

    const shape = write("shape.jsonl", JSON.stringify({ id: "c4", involved_classes: ["MathAPI"], turns: ["add(a=1, b=2)"] }) + "\n");
    expect(run(["--cases", shape]).stderr).toContain(`${shape}:1: turns.0: Expected array, received string`);
  });

  it("gives the model a Python error for call strings that do not parse", () => {
    const cases = write("syntax.jsonl", JSON.stringify({ id: "c5", involved_classes: ["MathAPI"], turns: [["add(a=1, b=2", "add(a=1 b=2)", "mean(numbers=[1, 2])"]] }) + "\n");
    const out = run(["--cases", cases]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim().split("\n").map((l) => JSON.parse(l).result)).toEqual([
      "Error during execution: '(' was never closed (<string>, line 1)",
      "Error during execution: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)",
      '{"result": 1.5}',
    ]);
  });

  it("explains missing arguments and missing long-context data", () => {
    expect(run([]).stderr).toContain("--cases FILE is required");
    expect(run(["--cases", path.join(tmp, "nope.jsonl")]).stderr).toContain("nope.jsonl");
    expect(run(["--cases", "x", "--today", "tomorrow"]).stderr).toContain("--today must be a date YYYY-MM-DD");
    const long = write("long.jsonl", JSON.stringify({ id: "c6", involved_classes: ["VehicleControlAPI"], long_context: true, turns: [["displayCarStatus('fuel')"]] }) + "\n");
    const out = run(["--cases", long], { ...process.env, ENVACE_DATA_DIR: tmp });
    expect(out.status).not.toBe(0);
    expect(out.stderr).toContain(`BFCL data not found: ${path.join(tmp, "bfcl", "reference/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py")} is missing`);
  });
});
