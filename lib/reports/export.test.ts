import { describe, expect, it } from "vitest";
import { exportFileName, exportReport, latexEscape, toCsv, toJson, toLatex, toMarkdown } from "./export";
import { sampleDocument } from "../../test/fixtures/report-document";
import { buildResultTable, type OutcomeCount } from "./document";
import { resultMarks } from "./marks";

/** A document from (run, benchmark, successes of 2) triples. */
function docOf(runs: string[], outcomes: [string, string, number][]) {
  const rs = runs.map((name, i) => ({ id: `r${i}`, name }));
  const counts: OutcomeCount[] = outcomes.map(([run, bench, successes], i) => ({ runId: rs[runs.indexOf(run)]!.id, instanceId: `i${i}`, dataSource: bench, n: 2, successes }));
  return sampleDocument({ runs: rs.map((r) => ({ ...r, kind: "eval", paradigm: "rehearse", status: "succeeded", evaluated: { phase: "eval", step: 1 } })), table: buildResultTable(rs, counts), notes: "" });
}

describe("report exports", () => {
  const doc = sampleDocument();

  it("Markdown: a table in the paper layout with escaped pipes, then the notes", () => {
    const md = toMarkdown(doc);
    expect(md.split("\n").slice(0, 6)).toEqual([
      "# Retail & shop: 50% eval",
      "",
      "Live results computed at 2026-01-02T03:04:05.000Z.",
      "",
      "| Run | shop Avg@4 | shop pass@4 | tau2_retail Avg@4 | tau2_retail pass@4 | Overall Avg@4 | Overall pass@4 |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]);
    // The app's marks: the best value of each column in bold.
    expect(md).toContain("| EnvACE 8B | 0.00 | 0.00 | **62.50** | **100.00** | 31.25 | 50.00 |");
    expect(md).toContain("| Backbone \\| baseline | **75.00** | **100.00** | 25.00 | 50.00 | **50.00** | **75.00** |");
    expect(md.trimEnd().endsWith("## Notes\n\nEnvACE **beats** the backbone.")).toBe(true);
  });

  it("CSV: one row per run and benchmark plus Overall, quoted and formula-safe", () => {
    const csv = toCsv(sampleDocument({ table: { ...doc.table, rows: doc.table.rows.map((r, i) => (i ? { ...r, runName: '=HYPERLINK("x")' } : r)) } }));
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("run,benchmark,k,instances,avg_at_k,pass_at_k,partial_avg_at_k,best,note");
    expect(lines).toContain("EnvACE 8B,tau2_retail,4,2,62.50,100.00,,avg_at_k pass_at_k,");
    expect(lines).toContain("EnvACE 8B,Overall,,,31.25,50.00,,,");
    expect(lines).toContain(`"'=HYPERLINK(""x"")",shop,4,1,75.00,100.00,,avg_at_k pass_at_k,`);
    expect(lines).toHaveLength(1 + 3 * 2);
  });

  it("LaTeX: escapes specials and bolds the best value per column", () => {
    expect(latexEscape("a_b & 50% {x} #1 $ ~ ^ \\")).toBe(
      "a\\_b \\& 50\\% \\{x\\} \\#1 \\$ \\textasciitilde{} \\textasciicircum{} \\textbackslash{}",
    );
    const tex = toLatex(doc);
    expect(tex).toContain("\\caption{Retail \\& shop: 50\\% eval}");
    expect(tex).toContain("\\begin{tabular}{lrrrrrr}");
    expect(tex).toContain("& \\multicolumn{2}{c}{shop} & \\multicolumn{2}{c}{tau2\\_retail} & \\multicolumn{2}{c}{Overall} \\\\");
    expect(tex).toContain("EnvACE 8B & 0.00 & 0.00 & \\textbf{62.50} & \\textbf{100.00} & 31.25 & 50.00 \\\\");
    expect(tex).toContain("Backbone | baseline & \\textbf{75.00} & \\textbf{100.00} & 25.00 & 50.00 & \\textbf{50.00} & \\textbf{75.00} \\\\");
  });

  it("bolds a value only against a competitor: never in a single row, nor in a column only one row has", () => {
    const single = docOf(["Solo"], [["Solo", "shop", 2], ["Solo", "tau2", 1]]);
    expect(toLatex(single)).not.toContain("\\textbf");
    expect(toMarkdown(single)).toContain("| Solo | 100.00 | 100.00 | 50.00 | 100.00 | 75.00 | 100.00 |");
    // B has no tau2 value: A's tau2 cells stand alone and stay plain; shop is contested.
    const lone = docOf(["A", "B"], [["A", "shop", 1], ["A", "tau2", 2], ["B", "shop", 2]]);
    const tex = toLatex(lone);
    expect(tex).toContain("A & 50.00 & \\textbf{100.00} & 100.00 & 100.00 & 75.00 & 100.00 \\\\");
    expect(tex).toContain("B & \\textbf{100.00} & \\textbf{100.00} & -- & -- & 100.00\\textsuperscript{\\dag} & 100.00\\textsuperscript{\\dag} \\\\");
    expect(toMarkdown(lone)).toContain("| B | **100.00** | **100.00** | — | — | 100.00† | 100.00† |");
  });

  it("marks an Overall over fewer columns with † and a footnote in every format, and bolds Overall only among full ones", () => {
    const doc = docOf(["A", "B", "C"], [["A", "shop", 1], ["A", "tau2", 1], ["B", "shop", 2], ["C", "shop", 0], ["C", "tau2", 1]]);
    const footnote = "† Overall over fewer benchmarks than the table, not comparable with a full Overall: B over shop only (no tau2).";
    expect(resultMarks(doc.table).footnote).toBe(footnote);
    const md = toMarkdown(doc);
    // A (50) beats C (25) among the full Overalls; B's 100 over shop alone is not a competitor.
    expect(md).toContain("| A | 50.00 | **100.00** | **50.00** | **100.00** | **50.00** | **100.00** |");
    expect(md).toContain("| B | **100.00** | **100.00** | — | — | 100.00† | 100.00† |");
    expect(md).toContain(`\n\n${footnote}\n`);
    const tex = toLatex(doc);
    expect(tex).toContain("B & \\textbf{100.00} & \\textbf{100.00} & -- & -- & 100.00\\textsuperscript{\\dag} & 100.00\\textsuperscript{\\dag} \\\\");
    expect(tex).toContain("\\end{tabular}\n\\par\\smallskip{\\footnotesize \\dag{} Overall over fewer benchmarks than the table, not comparable with a full Overall: B over shop only (no tau2).}\n\\end{table}");
    const csv = toCsv(doc).split("\r\n");
    expect(csv).toContain("B,Overall,,,100.00,100.00,,,† over shop only (no tau2); not comparable with a full Overall");
    expect(csv).toContain("A,Overall,,,50.00,100.00,,avg_at_k pass_at_k,");
    const json = JSON.parse(toJson(doc));
    expect(json.marks.table.partialOverall).toEqual([{ runId: "r1", runName: "B", covers: ["shop"], missing: ["tau2"] }]);
    expect(json.marks.table.footnote).toBe(footnote);
    expect(json.marks.table.best).toContainEqual({ runId: "r0", runName: "A", column: "Overall", metric: "avgAtK" });
    expect(json.marks.table.best).not.toContainEqual(expect.objectContaining({ runId: "r1", column: "Overall" }));
  });

  it("JSON: the whole document, versioned, parseable", () => {
    const parsed = JSON.parse(toJson(doc));
    expect(parsed.format).toBe("envace-report/v1");
    expect(parsed.table.rows[0].cells.tau2_retail.avgAtK).toBe(62.5);
    expect(parsed.title).toBe(doc.title);
  });

  it("dispatches by format and names files after the title", () => {
    expect(exportReport(doc, "csv")).toBe(toCsv(doc));
    expect(exportFileName(doc, "latex")).toBe("retail-shop-50-eval.tex");
    expect(exportFileName(sampleDocument({ title: "!!!" }), "markdown")).toBe("report.md");
  });
});
