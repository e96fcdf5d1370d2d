import { describe, expect, it } from "vitest";
import { exportFileName, exportReport, latexEscape, toCsv, toJson, toLatex, toMarkdown } from "./export";
import { sampleDocument } from "../../test/fixtures/report-document";

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
    expect(md).toContain("| EnvACE 8B | 0.00 | 0.00 | 62.50 | 100.00 | 31.25 | 50.00 |");
    expect(md).toContain("| Backbone \\| baseline | 75.00 | 100.00 | 25.00 | 50.00 | 50.00 | 75.00 |");
    expect(md.trimEnd().endsWith("## Notes\n\nEnvACE **beats** the backbone.")).toBe(true);
  });

  it("CSV: one row per run and benchmark plus Overall, quoted and formula-safe", () => {
    const csv = toCsv(sampleDocument({ table: { ...doc.table, rows: doc.table.rows.map((r, i) => (i ? { ...r, runName: '=HYPERLINK("x")' } : r)) } }));
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("run,benchmark,k,instances,avg_at_k,pass_at_k");
    expect(lines).toContain("EnvACE 8B,tau2_retail,4,2,62.50,100.00");
    expect(lines).toContain("EnvACE 8B,Overall,,,31.25,50.00");
    expect(lines).toContain(`"'=HYPERLINK(""x"")",shop,4,1,75.00,100.00`);
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
