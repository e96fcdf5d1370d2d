"use client";
/** The studies: groups of runs that differ only in a seed or a small grid of settings. */
import Link from "next/link";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "../_lib/trpc";
import { formatTime } from "../_lib/format";
import { RequireUser, useMe } from "../_components/require-user";
import { valueText } from "../../lib/studies";

function StudiesList() {
  const trpc = useTRPC();
  const me = useMe();
  const studies = useInfiniteQuery(trpc.studies.list.infiniteQueryOptions({ limit: 50 }, { getNextPageParam: (last) => last.nextCursor ?? undefined }));
  const items = studies.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <div>
      <div className="page-head">
        <h1>Studies</h1>
        <div className="spacer" />
        {me && me.role !== "viewer" && (
          <Link className="button primary" href="/studies/new">
            New study
          </Link>
        )}
      </div>
      <p className="muted small">
        A study launches runs that differ only in a seed or in a small grid of settings (e.g. rollout.paradigm × policy.model × 4 seeds), overlays their charts as mean ± std per group and
        tables each benchmark across seeds.
      </p>
      {studies.error && <p role="alert" className="error">{studies.error.message}</p>}
      {studies.data && items.length === 0 && <p className="muted">No studies yet.</p>}
      {items.length > 0 && (
        <table className="table" data-testid="studies-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Grid</th>
              <th scope="col">Seeds</th>
              <th scope="col">Runs</th>
              <th scope="col">Author</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.id}>
                <td>
                  <Link href={`/studies/${s.id}`}>{s.name}</Link>
                </td>
                <td>{s.grid.length ? s.grid.map((a) => `${a.setting} ∈ {${a.values.map(valueText).join(", ")}}`).join(" × ") : <span className="muted">seeds only</span>}</td>
                <td>{s.seeds.join(", ")}</td>
                <td>
                  {Object.entries(s.runs)
                    .map(([status, n]) => `${n} ${status}`)
                    .join(", ")}
                </td>
                <td>{s.createdBy.name || s.createdBy.email}</td>
                <td>{formatTime(s.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {studies.hasNextPage && (
        <button type="button" onClick={() => studies.fetchNextPage()} disabled={studies.isFetchingNextPage}>
          Load more
        </button>
      )}
    </div>
  );
}

export default function StudiesPage() {
  return (
    <RequireUser>
      <StudiesList />
    </RequireUser>
  );
}
