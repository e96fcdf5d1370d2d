"use client";
/** A shared report, read-only and without an account: the token opens this one report and nothing else. */
import { useQuery } from "@tanstack/react-query";
import { use } from "react";
import { useTRPC } from "../../_lib/trpc";
import { formatTime } from "../../_lib/format";
import { ExportButtons } from "../../_components/report/export-buttons";
import { ReportBody } from "../../_components/report/report-body";

export default function SharedReportPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = use(params);
  const trpc = useTRPC();
  const shared = useQuery(trpc.reports.shared.queryOptions({ token }, { retry: false, staleTime: Infinity }));
  if (shared.error) {
    return (
      <div className="card shared-error" role="alert">
        <h1>Report unavailable</h1>
        <p>{shared.error.message}</p>
      </div>
    );
  }
  if (!shared.data) return <p className="muted">Loading…</p>;
  const doc = shared.data.document;
  return (
    <article className="shared-report">
      <header className="page-head">
        <h1>{doc.title}</h1>
        <span className="badge">read-only</span>
      </header>
      <p className="muted small">Shared from EnvACE Studio · link expires {formatTime(shared.data.expiresAt)} UTC</p>
      <ExportButtons doc={doc} />
      <ReportBody doc={doc} linkRuns={false} />
    </article>
  );
}
