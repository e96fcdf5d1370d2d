"use client";
/** Download the report in each export format; files are made in the browser from the document shown. */
import { exportFileName, exportFormats, exportReport } from "../../../lib/reports/export";
import type { ReportDocument } from "../../../lib/reports/document";

function download(name: string, mime: string, content: string) {
  const url = URL.createObjectURL(new Blob([content], { type: `${mime};charset=utf-8` }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ExportButtons({ doc }: { doc: ReportDocument }) {
  return (
    <div className="export-buttons" role="group" aria-label="Export">
      <span className="muted small">Export</span>
      {exportFormats.map((f) => (
        <button key={f.format} type="button" onClick={() => download(exportFileName(doc, f.format), f.mime, exportReport(doc, f.format))}>
          {f.label}
        </button>
      ))}
    </div>
  );
}
