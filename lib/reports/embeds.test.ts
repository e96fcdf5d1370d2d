import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sampleDocument } from "../../test/fixtures/report-document";
import { chartSvg, ticks } from "./chart-svg";
import type { ReportChart } from "./document";
import { chartKeysIn, embedCaption, findEmbeds, parseEmbed, reportLayout, resolveChart, resolveTable } from "./embeds";
import { toMarkdown } from "./export";

const reward: ReportChart = {
  key: "reward/mean",
  series: [
    { runId: "r-a", runName: "EnvACE 8B", points: [1, 2, 3].map((step) => ({ step, value: step / 10 })) },
    { runId: "r-b", runName: "Backbone | baseline", points: [1, 2, 3].map((step) => ({ step, value: step / 20 })) },
  ],
};

describe("embed blocks", () => {
  it("finds chart and table blocks as Markdown code blocks, numbered in order", () => {
    const notes = [
      "Intro",
      "",
      "```envace-chart\nmetric: reward/mean\nruns: 1, Backbone | baseline\ncaption: Reward\n```",
      "",
      "````markdown\n```envace-chart\nmetric: not/an/embed\n```\n````",
      "",
      "~~~envace-table\n~~~",
      "",
      "    ```envace-chart",
      "    indented code, not a fence",
      "",
      "```envace-chart\nval/avg@4\n```",
    ].join("\n");
    const blocks = findEmbeds(notes);
    expect(blocks.map((b) => b.embed)).toEqual([
      { kind: "chart", metric: "reward/mean", runs: ["1", "Backbone | baseline"], caption: "Reward", number: 1 },
      { kind: "table", benchmarks: null, caption: null, number: 1 },
      { kind: "chart", metric: "val/avg@4", runs: null, caption: null, number: 2 },
    ]);
    expect(notes.slice(blocks[0]!.start, blocks[0]!.end)).toMatch(/^```envace-chart[\s\S]*```$/);
    expect(chartKeysIn(notes)).toEqual(["reward/mean", "val/avg@4"]);
  });

  it("names what is wrong with a block", () => {
    expect(parseEmbed("envace-chart", "runs: 1", 1)).toEqual({ kind: "error", language: "envace-chart", message: "needs metric: <key>, e.g. metric: reward/mean" });
    expect(parseEmbed("envace-table", "colour: red", 1)).toMatchObject({ kind: "error", message: 'unknown key "colour" (known: benchmarks, caption)' });
    expect(parseEmbed("envace-table", "results\n# a comment", 2)).toEqual({ kind: "table", benchmarks: null, caption: null, number: 2 });
  });

  it("resolves runs by position or name, and benchmarks with a recomputed Overall", () => {
    const doc = sampleDocument({ charts: [reward] });
    const chart = resolveChart(doc, { kind: "chart", metric: "reward/mean", runs: ["2"], caption: null, number: 1 });
    expect("chart" in chart && chart.chart.series.map((s) => s.runName)).toEqual(["Backbone | baseline"]);
    expect(resolveChart(doc, { kind: "chart", metric: "x", runs: null, caption: null, number: 1 })).toEqual({ error: 'none of the report\'s runs has the metric "x"' });
    expect(resolveChart({ ...doc, frozenAt: "2026-01-01T00:00:00Z" }, { kind: "chart", metric: "x", runs: null, caption: null, number: 1 })).toEqual({
      error: 'no chart "x" in the frozen snapshot (refresh the snapshot after adding a chart)',
    });
    const table = resolveTable(doc, { kind: "table", benchmarks: ["shop"], caption: null, number: 1 });
    expect("table" in table && table.table.rows.map((r) => [r.runName, r.overall])).toEqual([
      ["EnvACE 8B", { avgAtK: 0, passAtK: 0 }],
      ["Backbone | baseline", { avgAtK: 75, passAtK: 100 }],
    ]);
    expect(embedCaption({ kind: "table", benchmarks: null, caption: null, number: 3 })).toBe("Table 3: Success rates in percent");
  });

  it("names the valid benchmarks and metrics when one is unknown, with the near one a typo meant", () => {
    const doc = sampleDocument({ charts: [reward], table: { ...sampleDocument().table, benchmarks: ["shop", "tau2:retail"] } });
    expect(resolveTable(doc, { kind: "table", benchmarks: ["tau2_retail"], caption: null, number: 1 })).toEqual({
      error: 'no benchmark "tau2_retail" — did you mean "tau2:retail"? in the results; the valid benchmarks are "shop", "tau2:retail"',
    });
    expect(resolveTable(doc, { kind: "table", benchmarks: ["webshop"], caption: null, number: 1 })).toEqual({ error: 'no benchmark "webshop" in the results; the valid benchmarks are "shop", "tau2:retail"' });
    expect(resolveTable({ ...doc, table: { ...doc.table, benchmarks: [] } }, { kind: "table", benchmarks: ["shop"], caption: null, number: 1 })).toEqual({
      error: 'no benchmark "shop" in the results; the valid benchmarks are none yet (no run has evaluated trajectories)',
    });
    expect(resolveChart(doc, { kind: "chart", metric: "Reward/Mean", runs: null, caption: null, number: 1 })).toEqual({ error: 'none of the report\'s runs has the metric "Reward/Mean" — did you mean "reward/mean"?' });
  });

  it("README's embed example names benchmarks by their real keys", () => {
    const readme = fs.readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
    const block = /```envace-table\n([\s\S]*?)```/.exec(readme);
    expect(block).not.toBeNull();
    const embed = parseEmbed("envace-table", block![1]!, 1);
    expect(embed.kind).toBe("table");
    for (const b of (embed as { benchmarks: string[] }).benchmarks) expect(b).toMatch(/^(tau2:retail|builtin:[a-z0-9_-]+|bfcl:[a-z_]+)$/);
  });

  it("lays out a report with embeds as a paper: notes first, the rest after", () => {
    const plain = reportLayout(sampleDocument({ charts: [reward] }));
    expect(plain).toEqual({ notesFirst: false, showTable: true, charts: [reward] });
    const paper = reportLayout(sampleDocument({ charts: [reward], notes: "```envace-table\n```\n\n```envace-chart\nmetric: reward/mean\n```" }));
    expect(paper).toEqual({ notesFirst: true, showTable: false, charts: [] });
  });

  it("an embed that cannot be shown embeds nothing: the default table and charts stay", () => {
    const broken = "```envace-table\nbenchmarks: tau2:retail\n```\n\n```envace-chart\nmetric: reward/mean\nruns: 7\n```\n\n```envace-table\ncolour: red\n```";
    expect(reportLayout(sampleDocument({ charts: [reward], notes: broken }))).toEqual({ notesFirst: false, showTable: true, charts: [reward] });
    // One good embed among broken ones lays the report out as a paper, and hides only what it shows.
    const mixed = reportLayout(sampleDocument({ charts: [reward], notes: `${broken}\n\n\`\`\`envace-chart\nmetric: reward/mean\n\`\`\`` }));
    expect(mixed).toEqual({ notesFirst: true, showTable: true, charts: [] });
  });

  it("the Markdown export shows a failing embed's error in place and still the default results table", () => {
    const md = toMarkdown(sampleDocument({ notes: "Intro.\n\n```envace-table\nbenchmarks: tau2-retail\n```\n\nEnd." }));
    expect(md).toContain('Intro.\n\n> Table 1: Success rates in percent: no benchmark "tau2-retail" — did you mean "tau2_retail"? in the results; the valid benchmarks are "shop", "tau2_retail"\n\nEnd.');
    expect(md).toContain("| Run | shop Avg@4 | shop pass@4 | tau2_retail Avg@4 |");
  });
});

describe("Markdown export of a paper-like report", () => {
  it("contains the GFM table, the formula as written, the embedded table and the figure with its data", () => {
    const doc = sampleDocument({
      charts: [reward],
      notes: "## Setup\n\n| k | value |\n|---|---|\n| 4 | 8 |\n\nWe report $\\text{Avg@}k$.\n\n```envace-table\ncaption: Main results\n```\n\n```envace-chart\nmetric: reward/mean\ncaption: Training reward\n```\n\nDone.",
    });
    const md = toMarkdown(doc);
    const lines = md.split("\n");
    expect(lines.slice(0, 6)).toEqual(["# Retail & shop: 50% eval", "", "Live results computed at 2026-01-02T03:04:05.000Z.", "", "## Setup", ""]);
    expect(md).toContain("| k | value |\n|---|---|\n| 4 | 8 |");
    expect(md).toContain("We report $\\text{Avg@}k$.");
    expect(md).toContain("| EnvACE 8B | 0.00 | 0.00 | **62.50** | **100.00** | 31.25 | 50.00 |\n| Backbone \\| baseline | **75.00** | **100.00** | 25.00 | 50.00 | **50.00** | **75.00** |\n\n*Table 1: Main results*");
    expect(md).toMatch(/!\[Figure 1: Training reward\]\(data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+\)\n\n\*Figure 1: Training reward\*/);
    expect(md).toContain("| step | EnvACE 8B | Backbone \\| baseline |\n| ---: | ---: | ---: |\n| 1 | 0.1 | 0.05 |");
    expect(md.trimEnd().endsWith("Done.")).toBe(true);
    // Embedded once: no standalone results table or charts section.
    expect(md.match(/\| Run \| shop Avg@4/g)).toHaveLength(1);
    expect(md).not.toContain("## Charts");
    const svg = Buffer.from(/base64,([A-Za-z0-9+/=]+)\)/.exec(md)![1]!, "base64").toString("utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain("<text x=\"56\" y=\"18\" font-size=\"13\" font-weight=\"bold\">Figure 1: Training reward</text>");
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain(">Backbone | baseline</text>");
  });
});

describe("chart SVG", () => {
  it("escapes text and gives the same bytes for the same chart", () => {
    const hostile: ReportChart = { key: "<script>", series: [{ runId: "x", runName: '"><img onerror=1>', points: [{ step: 1, value: 1 }] }] };
    const svg = chartSvg(hostile, ["x"]);
    expect(svg).not.toMatch(/<script|<img/);
    expect(svg).toContain("&lt;script&gt;");
    expect(chartSvg(reward, ["r-a", "r-b"])).toBe(chartSvg(reward, ["r-a", "r-b"]));
    expect(chartSvg({ key: "k", series: [] }, [])).toContain(">no data</text>");
  });

  it("picks round ticks", () => {
    expect(ticks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(ticks(1, 3, 6, true)).toEqual([1, 2, 3]);
  });
});
