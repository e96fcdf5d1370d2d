/**
 * A policy that emits the ground truth scores 100 % on every single-turn category, through the same path a
 * model's reply takes (hermes `<tool_call>` blocks → decode → evaluation). The only failures allowed are the
 * entries whose own possible answer fails upstream's checker too (upstream data defects), taken from the
 * golden file, so the two sets must be equal. Needs the BFCL data; skipped with a message when absent.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { AST_CATEGORIES, loadSingleTurnCategory, RELEVANCE_CATEGORIES } from "./data";
import { decodeToolCallBlocks } from "./decode";
import { categoryScore, evaluateSingleTurnEntry } from "./evaluate";
import { bfclDataDir } from "./files";
import { oracleOutput } from "./oracle";
import { PyDict, pyJsonDumps } from "./values";

const hasData = existsSync(path.join(bfclDataDir(), "data", "BFCL_v4_simple_python.json"));
if (!hasData) console.warn(`BFCL data not found under ${bfclDataDir()}: skipping the single-turn oracle test (set ENVACE_DATA_DIR).`);

const asReply = (calls: PyDict[]) =>
  "<think>\nThe user wants these calls.\n</think>\n\n" +
  calls.map((c) => { const [name, args] = c.entries()[0]; return `<tool_call>\n{"name": ${pyJsonDumps(name)}, "arguments": ${pyJsonDumps(args)}}\n</tool_call>`; }).join("\n");

/** Entries whose ground truth upstream's own checker rejects (from the goldens). */
function upstreamRejectedGroundTruths(): string[] {
  const file = path.resolve(__dirname, "../../../../test/fixtures/bfcl/single-turn/ast-goldens.jsonl.gz");
  return gunzipSync(readFileSync(file))
    .toString("utf8")
    .split("\n")
    .filter((l) => l.includes('"case": "gt"') && l.includes('"valid": false'))
    .map((l) => JSON.parse(l).id as string)
    .sort();
}

describe.skipIf(!hasData)("ground-truth policy", () => {
  it("scores 100 % on every AST category except upstream's own unreachable answers", () => {
    const failed: string[] = [];
    for (const category of AST_CATEGORIES) {
      const entries = loadSingleTurnCategory(category);
      const verdicts = entries.map((e) => evaluateSingleTurnEntry(e, decodeToolCallBlocks(asReply(oracleOutput(e.functions, e.possibleAnswer!, e.language)))));
      failed.push(...verdicts.filter((v) => !v.valid).map((v) => v.id));
      expect(categoryScore(verdicts).totalCount).toBe(entries.length);
    }
    expect(failed.sort()).toEqual(upstreamRejectedGroundTruths());
    expect(failed.length).toBeLessThan(10);
  });

  it("scores 100 % on irrelevance (no call) and relevance (a call)", () => {
    for (const category of RELEVANCE_CATEGORIES) {
      const entries = loadSingleTurnCategory(category);
      const verdicts = entries.map((e) =>
        evaluateSingleTurnEntry(e, decodeToolCallBlocks(category.includes("irrelevance") ? "None of the functions fits this request." : asReply([PyDict.of([[e.functions[0].name, new PyDict()]])]))),
      );
      expect(categoryScore(verdicts)).toEqual({ accuracy: 1, correctCount: entries.length, totalCount: entries.length });
    }
  });
});
