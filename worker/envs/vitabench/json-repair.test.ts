/**
 * The judge-reply reader against json_repair 0.52.5 itself (scripts/vitabench/json_repair_goldens.py): the parser's
 * value and upstream's `json.loads(repair_json(reply))` on recorded malformed replies and mutations of good ones.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { pyJsonDumpsValue } from "../../../lib/python/values";
import { readJudgeReply, repairParse } from "./json-repair";

interface Golden {
  input: string;
  parsed: string | null;
  extracted?: string | { error: string };
}
const goldens: Golden[] = readFileSync(new URL("../../../test/fixtures/vitabench/json-repair.golden.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

describe("json_repair port", () => {
  it("parses every recorded and mutated reply as json_repair 0.52.5 does", () => {
    const wrong: { input: string; want: string | null; got: string | null }[] = [];
    for (const g of goldens) {
      const v = repairParse(g.input);
      const got = v === "" ? null : pyJsonDumpsValue(v);
      if (got !== g.parsed) wrong.push({ input: g.input, want: g.parsed, got });
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(goldens.length).toBeGreaterThan(700);
  });
  it("reads a judge reply as upstream's evaluator_extracter (json.loads first; nothing found is a failure)", () => {
    const wrong: { input: string; want: unknown; got: unknown }[] = [];
    for (const g of goldens) {
      const want = g.extracted ?? g.parsed;
      const r = readJudgeReply(g.input);
      const got = r.ok ? pyJsonDumpsValue(r.value) : { error: "JSONDecodeError" };
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push({ input: g.input, want, got });
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
  it("repairs the usual judge mistakes", () => {
    const read = (s: string) => {
      const r = readJudgeReply(s);
      return r.ok ? pyJsonDumpsValue(r.value) : r.why;
    };
    expect(read('Here you go:\n```json\n[{"rubric_idx": "rubric_0", "meetExpectation": true},]\n```')).toBe('[{"rubric_idx": "rubric_0", "meetExpectation": true}]');
    expect(read('[{"rubric_idx": "rubric_0", "justification": "cut off')).toBe('[{"rubric_idx": "rubric_0", "justification": "cut off"}]');
    expect(read("[{'rubric_idx': 'rubric_0', 'meetExpectation': True}]")).toBe('[{"rubric_idx": "rubric_0", "meetExpectation": true}]');
    expect(read("I cannot judge this.")).toBe("json_repair finds no JSON in the reply");
  });
});
