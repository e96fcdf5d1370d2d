"use client";
import Link from "next/link";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "../_lib/trpc";
import { formatTime } from "../_lib/format";
import { RequireUser, useMe } from "../_components/require-user";

function ReportsList() {
  const trpc = useTRPC();
  const me = useMe();
  const reports = useInfiniteQuery(
    trpc.reports.list.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (last) => last.nextCursor ?? undefined, staleTime: 0 }),
  );
  const items = reports.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div>
      <div className="page-head">
        <h1>Reports</h1>
        <div className="spacer" />
        {me && me.role !== "viewer" && (
          <Link className="button primary" href="/reports/new">
            New report
          </Link>
        )}
      </div>
      {reports.error && <p role="alert" className="error">{reports.error.message}</p>}
      {reports.data && items.length === 0 && <p className="muted">No reports yet. Build one from runs, or from the compare page.</p>}
      {items.length > 0 && (
        <table className="table" data-testid="reports-table">
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Runs</th>
              <th scope="col">State</th>
              <th scope="col">Author</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id}>
                <td>
                  <Link href={`/reports/${r.id}`}>{r.title}</Link>
                </td>
                <td>{r.runIds.length}</td>
                <td>{r.frozenAt ? `frozen ${formatTime(r.frozenAt)}` : "live"}</td>
                <td>{r.createdBy.name}</td>
                <td>{formatTime(r.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {reports.hasNextPage && (
        <button type="button" onClick={() => reports.fetchNextPage()} disabled={reports.isFetchingNextPage}>
          Load more
        </button>
      )}
    </div>
  );
}

export default function ReportsPage() {
  return (
    <RequireUser>
      <ReportsList />
    </RequireUser>
  );
}
