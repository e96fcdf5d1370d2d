import { describe, expect, it } from "vitest";
import { sampleDocument } from "../../test/fixtures/report-document";
import { buildBfclTable, bfclMarkdown, type MetricPointRow } from "./bfcl";
import { exportReport, toCsv, toLatex, toMarkdown } from "./export";
import { scrubForShare } from "./document";

const point = (runId: string, key: string, value: number, step = 1): MetricPointRow => ({ runId, key: `val/bfcl/${key}`, step, value });

/** A run evaluated on multi-turn (a subset of base), the non-live categories and memory kv/rec_sum; one trial not scored. */
function points(): MetricPointRow[] {
  const out: MetricPointRow[] = [];
  const cat = (runId: string, c: string, accuracy: number, tasks: number, trials = tasks, step = 1) =>
    out.push(point(runId, `${c}/accuracy`, accuracy, step), point(runId, `${c}/tasks`, tasks, step), point(runId, `${c}/trials`, trials, step));
  for (const c of ["multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"]) cat("r-a", c, 0.5, 200);
  cat("r-a", "multi_turn_base", 0.25, 8, 15);
  out.push(point("r-a", "multi_turn_base/not_scored", 1));
  for (const c of ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple"]) cat("r-a", c, 0.8, 10);
  cat("r-a", "memory_kv", 0.4, 155);
  cat("r-a", "memory_rec_sum", 0.2, 155);
  // An older evaluation of the same run is ignored: the latest step counts.
  cat("r-a", "multi_turn_base", 0.99, 200, 200, 0);
  return out;
}

describe("the BFCL report block", () => {
  it("lays each run out in the paper's columns, leaving columns that were not run empty with the reason", () => {
    const table = buildBfclTable([{ id: "r-a", name: "EnvACE" }, { id: "r-b", name: "no BFCL" }], points())!;
    expect(table.columns.map((c) => c.label)).toEqual(["Web", "Memory", "Multi-turn", "Non-live", "Live", "Irrelevance", "Avg"]);
    expect(table.rows).toHaveLength(1);
    const [row] = table.rows;
    const col = Object.fromEntries(row.columns.map((c) => [c.key, c]));
    expect(col.multiTurn.value).toBe(43.75);
    expect(col.nonLive.value).toBe(80);
    expect(col.web).toMatchObject({ value: null, partial: null, note: expect.stringMatching(/web_search_base \(needs a search node/) });
    expect(col.memory).toMatchObject({ value: null, partial: 30, note: expect.stringMatching(/memory_vector \(needs an embedding node/) });
    expect(col.live).toMatchObject({ value: null, note: expect.stringMatching(/live_simple \(not evaluated in this run\)/) });
    expect(col.avg.value).toBeNull();
    expect(row.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Web: not run: /),
        expect.stringMatching(/^Subsets: simple_python 10 of 400 tasks, .*multi_turn_base 8 of 200 tasks$/),
        "multi_turn_base: 1 trial(s) could not be run and are not scored",
      ]),
    );
    expect(row.categories.find((c) => c.category === "multi_turn_base")).toEqual({ category: "multi_turn_base", accuracy: 25, tasks: 8, trials: 15, notScored: 1, of: 200 });
    expect(buildBfclTable([{ id: "r-b", name: "x" }], points())).toBeNull();
  });

  it("goes into the Markdown, CSV and LaTeX exports and keeps its rows on a share link without run ids", () => {
    const bfcl = buildBfclTable([{ id: "r-a", name: "EnvACE 8B" }], points());
    const doc = sampleDocument({ bfcl });
    const md = toMarkdown(doc);
    expect(md).toContain("## BFCL V4\n\n| Run | Web | Memory | Multi-turn | Non-live | Live | Irrelevance | Avg |");
    expect(md).toContain("| EnvACE 8B | — | — (30.00 partial) | 43.75 | 80.00 | — | — | — |");
    expect(bfclMarkdown(bfcl!).join("\n")).toMatch(/- Memory: not run: memory_vector/);
    expect(exportReport(doc, "csv")).toContain("EnvACE 8B,BFCL Multi-turn,,608,43.75,,,,");
    expect(exportReport(doc, "latex")).toContain("EnvACE 8B & -- & -- (30.00 partial) & 43.75 & 80.00 & -- & -- & -- \\\\");
    expect(scrubForShare(doc).bfcl!.rows[0].runId).toBe("run-1");
    // A report without BFCL runs has no BFCL section.
    expect(toMarkdown(sampleDocument())).not.toContain("BFCL");
  });

  it("CSV and LaTeX carry every value and note the app shows: partial means, why a column is empty, subsets", () => {
    const bfcl = buildBfclTable([{ id: "r-a", name: "EnvACE 8B" }], points())!;
    const csv = toCsv(sampleDocument({ bfcl })).split("\r\n");
    const row = (label: string) => csv.find((l) => l.startsWith(`EnvACE 8B,BFCL ${label},`))!.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
    // run, benchmark, k, instances, avg_at_k, pass_at_k, partial_avg_at_k, best, note
    expect(row("Memory").slice(0, 8)).toEqual(["EnvACE 8B", "BFCL Memory", "", "310", "", "", "30.00", ""]);
    expect(row("Memory")[8]).toMatch(/^"?not run: memory_vector \(needs an embedding node.*; partial = mean over the parts that ran"?$/);
    expect(row("Web").slice(4, 7)).toEqual(["", "", ""]);
    expect(row("Web")[8]).toMatch(/not run: web_search_base \(needs a search node/);
    expect(row("Multi-turn")[8]).toBe("subset: multi_turn_base 8 of 200 tasks; multi_turn_base: 1 trial(s) could not be run and are not scored");
    expect(row("Non-live")[8]).toMatch(/^subset: simple_python 10 of 400 tasks; /);
    // The BFCL rows follow the result rows under their header (6 result rows: 2 runs × (2 benchmarks + Overall)).
    expect(csv[7]).toMatch(/^EnvACE 8B,BFCL Web,/);
    const tex = toLatex(sampleDocument({ bfcl }));
    expect(tex).toContain("\\par\\smallskip{\\footnotesize \\textit{EnvACE 8B}: Web: not run: web\\_search\\_base");
    expect(tex).toContain("multi\\_turn\\_base: 1 trial(s) could not be run and are not scored.}");
    // A report without BFCL runs has no BFCL section.
    expect(toMarkdown(sampleDocument())).not.toContain("BFCL");
  });
});
