import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { sampleDocument } from "../../../test/fixtures/report-document";
import { buildResultTable } from "../../../lib/reports/document";
import { ReportBody } from "./report-body";
import { ResultTableView } from "./result-table";

describe("ReportBody (the report page and the share page)", () => {
  it("shows a failing embed's error in its place and still the default results table", () => {
    const out = renderToStaticMarkup(<ReportBody doc={sampleDocument({ notes: "Intro.\n\n```envace-table\nbenchmarks: tau2:retail\n```" })} linkRuns={false} />);
    expect(out).toContain('<p class="embed-error" role="note">Table 1: Success rates in percent: no benchmark &quot;tau2:retail&quot; — did you mean &quot;tau2_retail&quot;? in the results');
    expect(out).toContain('<h2 id="report-results">Results</h2>');
    expect(out.match(/data-testid="result-table"/g)).toHaveLength(1);
  });

  it("shows the VitaBench group with — and its reason where a domain was not run", () => {
    const cell = (key: "cross" | "delivery" | "instore" | "ota", label: string, value: number | null) => ({
      key,
      label,
      value,
      passAtK: value,
      passHatK: value,
      k: value === null ? null : 4,
      tasks: value === null ? 0 : 100,
      trials: value === null ? 0 : 400,
      errored: 0,
      runId: value === null ? null : "r-a",
      runName: value === null ? null : "EnvACE 8B",
      note: value === null ? "no VitaBench ota (en) evaluation of this policy in the report" : null,
    });
    const vitabench = {
      columns: [{ key: "cross" as const, label: "Cross" }, { key: "delivery" as const, label: "Deliv." }, { key: "instore" as const, label: "Inst." }, { key: "ota" as const, label: "OTA" }, { key: "avg" as const, label: "Avg" }],
      k: 4,
      rows: [{ key: "k", policy: "m on n", judge: "j on n", lang: "en" as const, label: "m on n · English", cells: [cell("cross", "Cross", 10), cell("delivery", "Deliv.", 20), cell("instore", "Inst.", 30), cell("ota", "OTA", null)], avg: null, partialAvg: 20, avgNote: "mean of Cross, Deliv., Inst. only: OTA not run" }],
    };
    const out = renderToStaticMarkup(<ReportBody doc={sampleDocument({ vitabench })} linkRuns={false} />);
    expect(out).toContain('<h2 id="report-vitabench">VitaBench</h2>');
    expect(out).toContain('title="no VitaBench ota (en) evaluation of this policy in the report" data-testid="vitabench-ota">—</td>');
    expect(out).toContain('data-testid="vitabench-avg">— (20.00 partial)</td>');
    expect(out).toContain("<li>m on n · English, OTA: no VitaBench ota (en) evaluation of this policy in the report</li>");
  });

  it("shows an embedded table instead of the default one when the embed works", () => {
    const out = renderToStaticMarkup(<ReportBody doc={sampleDocument({ notes: "```envace-table\nbenchmarks: shop\n```" })} linkRuns={false} />);
    expect(out).not.toContain('id="report-results"');
    expect(out).toContain('data-testid="embedded-table"');
  });
});

describe("ResultTableView marks", () => {
  it("bolds only against a competitor and marks an Overall over fewer columns with † and its footnote", () => {
    const runs = [
      { id: "a", name: "A" },
      { id: "b", name: "B" },
    ];
    const table = buildResultTable(runs, [
      { runId: "a", instanceId: "s", dataSource: "shop", n: 2, successes: 1 },
      { runId: "a", instanceId: "t", dataSource: "tau2:retail", n: 2, successes: 2 },
      { runId: "b", instanceId: "s", dataSource: "shop", n: 2, successes: 2 },
    ]);
    const out = renderToStaticMarkup(<ResultTableView doc={sampleDocument({ table })} linkRuns={false} />);
    const rows = out.split("<tr>").slice(3);
    // A's tau2:retail cells have no competitor: plain. B's shop wins; B's Overall covers shop only.
    expect(rows[0]).toContain('<td class="num">100.00</td><td class="num">100.00</td><td class="num">75.00</td>');
    expect(rows[1]).toContain('<td class="num best"><strong>100.00</strong></td>');
    expect(rows[1]).toContain("<td class=\"num\">100.00<sup title=\"Overall over fewer benchmarks than the table: see the note below\">†</sup></td>");
    expect(out).toContain('data-testid="result-table-footnote">† Overall over fewer benchmarks than the table, not comparable with a full Overall: B over shop only (no tau2:retail).</p>');
  });
});
