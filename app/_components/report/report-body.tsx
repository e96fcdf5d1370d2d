"use client";
/**
 * A report's content: the paper-layout result table, charts (one line per run) and notes — laid out by
 * reportLayout (lib/reports/embeds.ts), as the Markdown export is: notes that embed figures or tables
 * come first, and the standalone table and charts show only what the notes do not embed.
 */
import type { ReportDocument } from "../../../lib/reports/document";
import { useImagePolicy } from "../../_lib/image-policy";
import { reportLayout } from "../../../lib/reports/embeds";
import { MarkdownView } from "./markdown-view";
import { ReportChartView } from "./report-chart";
import { ResultTableView } from "./result-table";
import { TestTimeTableView } from "./test-time-table";
import { BfclTableView } from "./bfcl-table";
import { Tau2TableView } from "./tau2-table";
import { VitaTableView } from "./vitabench-table";
import { Table1View } from "./table1-table";
import { FinmcpTableView } from "./finmcp-table";

export { ResultTableView } from "./result-table";

export function ReportBody({ doc, linkRuns }: { doc: ReportDocument; linkRuns: boolean }) {
  const images = useImagePolicy();
  const layout = reportLayout(doc);
  const notes = (
    <section aria-labelledby="report-notes" key="notes">
      <h2 id="report-notes">{layout.notesFirst ? "Report" : "Notes"}</h2>
      <div data-testid="report-notes">
        <MarkdownView source={doc.notes} doc={doc} linkRuns={linkRuns} imagesFromOtherHosts={images.otherHosts} />
      </div>
    </section>
  );
  return (
    <div className="report-body">
      <p className="muted small" data-testid="report-state">
        {doc.frozenAt ? `Frozen snapshot of ${doc.frozenAt.replace("T", " ").slice(0, 19)} UTC` : `Live results, computed ${doc.generatedAt.replace("T", " ").slice(0, 19)} UTC`}
      </p>
      {layout.notesFirst && notes}
      {layout.showTable && (
        <section aria-labelledby="report-results">
          <h2 id="report-results">Results</h2>
          <ResultTableView doc={doc} linkRuns={linkRuns} />
        </section>
      )}
      {doc.table1 && (
        <section aria-labelledby="report-table1">
          <h2 id="report-table1">Table 1</h2>
          <Table1View table={doc.table1} linkRuns={linkRuns} />
        </section>
      )}
      {doc.finmcp && (
        <section aria-labelledby="report-finmcp">
          <h2 id="report-finmcp">FinMCP-Bench (Table 2)</h2>
          <FinmcpTableView table={doc.finmcp} linkRuns={linkRuns} />
        </section>
      )}
      {doc.testTime && (
        <section aria-labelledby="report-test-time">
          <h2 id="report-test-time">Test-time rehearsal (Table 3)</h2>
          <TestTimeTableView table={doc.testTime} linkRuns={linkRuns} />
        </section>
      )}
      {doc.bfcl && (
        <section aria-labelledby="report-bfcl">
          <h2 id="report-bfcl">BFCL V4</h2>
          <BfclTableView table={doc.bfcl} linkRuns={linkRuns} />
        </section>
      )}
      {doc.tau2 && (
        <section aria-labelledby="report-tau2">
          <h2 id="report-tau2">τ²-Bench</h2>
          <Tau2TableView table={doc.tau2} linkRuns={linkRuns} />
        </section>
      )}
      {doc.vitabench && (
        <section aria-labelledby="report-vitabench">
          <h2 id="report-vitabench">VitaBench</h2>
          <VitaTableView table={doc.vitabench} linkRuns={linkRuns} />
        </section>
      )}
      {(layout.charts.length > 0 || !layout.notesFirst) && (
        <section aria-labelledby="report-charts">
          <h2 id="report-charts">Charts</h2>
          {layout.charts.length === 0 ? (
            <p className="muted">No chartable metrics in these runs.</p>
          ) : (
            <div className="chart-grid">
              {layout.charts.map((c) => (
                <ReportChartView key={c.key} doc={doc} chart={c} />
              ))}
            </div>
          )}
        </section>
      )}
      {!layout.notesFirst && notes}
    </div>
  );
}
