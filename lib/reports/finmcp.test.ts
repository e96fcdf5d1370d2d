import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../contracts/run-config";
import { scoreRecords } from "../finmcp/score";
import { parseOrderedJson, type OrderedJson } from "../python/json";
import { latexEscape } from "./export";
import { FINMCP_CSV_HEADER, finmcpCsvRows, finmcpLatex, finmcpMarkdown, finmcpRow, type FinmcpRunInput } from "./finmcp";

const fixtures = join(__dirname, "../../test/fixtures/finmcp");
const read = (f: string) => parseOrderedJson(readFileSync(join(fixtures, f), "utf8")) as OrderedJson[];
/** The tie fixture's samples with its predictions laid over them, scored as upstream scores them. */
function tieSamples() {
  const samples = read("samples.tie.json");
  const predictions = read("predictions.tie.json");
  const records = samples.map((s, i) => new Map([...(s as Map<string, OrderedJson>), ...(predictions[i] as Map<string, OrderedJson>)]));
  return scoreRecords(records).scored.map((r) => ({ index: r.index, classLevel1: r.classLevel1, classDifficulty: r.classDifficulty, task: r.task, TP: r.TP, FP: r.FP, FN: r.FN, consist: r.consist }));
}
const run = (environment: string): FinmcpRunInput => {
  const parsed = parseRunConfig({ kind: "eval", policy: { node: "vllm", model: "Qwen/Qwen3-8B" }, data: { dataset: "finmcp:benchmark_final" }, finmcp: { environment } });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return { id: "r", name: "fin", status: "succeeded", config: parsed.config, checkpoint: null };
};

describe("Table 2 (FinMCP-Bench)", () => {
  const expected = JSON.parse(readFileSync(join(fixtures, "expected.tie.json"), "utf8"));
  const pct = (x: number) => Math.round(x * 10_000) / 100;

  it("TR, TP, TF1 (macro), micro and the groups are upstream's evaluation.py figures, in percent", () => {
    const row = finmcpRow(run("mcp:qieman"), 1, tieSamples(), {})!;
    expect(row.overall).toEqual({
      TR: pct(expected.overall.macro_Recall),
      TP: pct(expected.overall.macro_Precision),
      TF1: pct(expected.overall.macro_F1),
      microTR: pct(expected.overall.micro_Recall),
      microTP: pct(expected.overall.micro_Precision),
      microTF1: pct(expected.overall.micro_F1),
      N: expected.overall.N,
      exact: pct(expected.overall.consist_mean),
    });
    for (const g of ["scenario", "difficulty", "task"] as const) {
      expect(row.groups[g].map((x) => x.key)).toEqual(Object.keys(expected[g]));
      for (const x of row.groups[g]) expect([x.figures.TF1, x.figures.microTF1, x.figures.N]).toEqual([pct(expected[g][x.key].macro_F1), pct(expected[g][x.key].micro_F1), expected[g][x.key].N]);
    }
    expect(row.replay).toBe(false);
    expect(row.mode).toBe("live MCP server qieman (upstream's protocol)");
  });

  it("a replay is labelled wherever its numbers appear: the row, its notes and every export", () => {
    const row = finmcpRow(run("replay"), 1, tieSamples(), { "val/finmcp/replay": 1, "val/finmcp/errored": 1, "val/finmcp/unrecorded_calls": 2 })!;
    expect(row.replay).toBe(true);
    expect(row.notes[0]).toMatch(/^REPLAY: /);
    expect(row.notes).toContain("1 error record(s) dropped, as upstream's evaluation.py drops them");
    const table = { rows: [row] };
    const md = finmcpMarkdown(table).join("\n");
    expect(md).toContain("| fin (replay) | finmcp:benchmark_final | replay of the recorded gold outputs (not upstream's live-server protocol) |");
    expect(md).toContain("| Scenario | TR | TP | TF1 | micro TF1 | N | exact |");
    const csv = finmcpCsvRows(table);
    expect(csv[0]![FINMCP_CSV_HEADER.indexOf("replay")]).toBe("yes");
    expect(csv[0]![FINMCP_CSV_HEADER.indexOf("note")]).toMatch(/^REPLAY: /);
    expect(csv.filter((l) => l[4] === "scenario").length).toBe(Object.keys(expected.scenario).length);
    const tex = finmcpLatex(table, latexEscape).join("\n");
    expect(tex).toContain("fin (replay) & ");
    expect(tex).toContain("REPLAY: ");
  });

  it("a run that is not FinMCP has no row; one with no scored sample shows —", () => {
    const other = { ...run("replay"), config: { ...run("replay").config, data: { ...run("replay").config.data, dataset: "tau2:retail" } } };
    expect(finmcpRow(other, 1, [], {})).toBeNull();
    const none = finmcpRow(run("replay"), 1, [], {})!;
    expect(none.overall).toBeNull();
    expect(finmcpMarkdown({ rows: [none] }).join("\n")).toContain("| — | — | — |");
  });
});
