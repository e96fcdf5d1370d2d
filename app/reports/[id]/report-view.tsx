"use client";
/** One report: results (live or frozen), notes editor, freeze, share links and exports. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { formatTime } from "../../_lib/format";
import { useMe } from "../../_components/require-user";
import { ExportButtons } from "../../_components/report/export-buttons";
import { ReportBody } from "../../_components/report/report-body";

export function ReportView({ id }: { id: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const me = useMe();
  const report = useQuery(
    trpc.reports.get.queryOptions(
      { id },
      {
        staleTime: 0,
        // A launched test-time comparison fills its Table 3 as its runs finish: poll while any arm is still under way.
        refetchInterval: (q) =>
          q.state.data?.document.testTime?.rows.some((r) => Object.values(r.cells).some((c) => c != null && c.value == null && (c.status === "queued" || c.status === "running")))
            ? 5000
            : false,
      },
    ),
  );
  const freeze = useMutation(trpc.reports.freeze.mutationOptions());
  const unfreeze = useMutation(trpc.reports.unfreeze.mutationOptions());
  const remove = useMutation(trpc.reports.remove.mutationOptions());
  const update = useMutation(trpc.reports.update.mutationOptions());
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  if (report.error) return <p role="alert" className="error">{report.error.message}</p>;
  if (!report.data) return <p className="muted">Loading…</p>;
  const { report: r, document: doc } = report.data;
  const canChange = !!me && me.role !== "viewer" && (me.role === "admin" || r.createdById === me.id);

  async function run(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
      await qc.invalidateQueries({ queryKey: trpc.reports.get.queryKey({ id }) });
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <div>
      <div className="page-head">
        <h1>{r.title}</h1>
        <span className={`status ${r.frozenAt ? "status-succeeded" : "status-running"}`}>{r.frozenAt ? "frozen" : "live"}</span>
        <div className="spacer" />
        {canChange &&
          (r.frozenAt ? (
            <>
              <button type="button" onClick={() => run(() => freeze.mutateAsync({ id }))} disabled={freeze.isPending}>
                Refresh snapshot
              </button>
              <button type="button" onClick={() => run(() => unfreeze.mutateAsync({ id }))} disabled={unfreeze.isPending}>
                Unfreeze (live)
              </button>
            </>
          ) : (
            <button type="button" onClick={() => run(() => freeze.mutateAsync({ id }))} disabled={freeze.isPending}>
              Freeze snapshot
            </button>
          ))}
        {canChange && (
          <button
            type="button"
            onClick={() =>
              window.confirm("Delete this report and all its share links?") &&
              run(async () => {
                await remove.mutateAsync({ id });
                router.push("/reports");
              })
            }
          >
            Delete
          </button>
        )}
      </div>
      <p className="muted small">
        by {r.createdBy.name} · created {formatTime(r.createdAt)}
      </p>
      {error && <p role="alert" className="error">{error}</p>}
      <ExportButtons doc={doc} />
      <ReportBody doc={doc} linkRuns />
      {canChange && (
        <section aria-labelledby="edit-notes">
          <h2 id="edit-notes">Edit notes</h2>
          {editing == null ? (
            <button type="button" onClick={() => setEditing(r.body)}>
              Edit notes
            </button>
          ) : (
            <div className="form">
              <label htmlFor="notes-editor">Notes (Markdown)</label>
              <textarea id="notes-editor" rows={8} value={editing} onChange={(e) => setEditing(e.target.value)} />
              <div className="row">
                <button
                  type="button"
                  className="primary"
                  disabled={update.isPending}
                  onClick={() =>
                    run(async () => {
                      await update.mutateAsync({ id, body: editing });
                      setEditing(null);
                    })
                  }
                >
                  Save notes
                </button>
                <button type="button" onClick={() => setEditing(null)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </section>
      )}
      <SharePanel reportId={id} canChange={canChange} />
    </div>
  );
}

function SharePanel({ reportId, canChange }: { reportId: string; canChange: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const links = useQuery(trpc.reports.shareList.queryOptions({ reportId }));
  const create = useMutation(trpc.reports.shareCreate.mutationOptions());
  const revoke = useMutation(trpc.reports.shareRevoke.mutationOptions());
  const [days, setDays] = useState(7);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.reports.shareList.queryKey({ reportId }) });

  return (
    <section aria-labelledby="share-heading" className="card share-panel">
      <h2 id="share-heading">Share links</h2>
      <p className="muted small">Anyone with a link can read this report (and nothing else) without an account until it expires or is revoked.</p>
      {canChange && (
        <div className="row">
          <label>
            Expires after (days)
            <input type="number" min={1} max={365} value={days} onChange={(e) => setDays(Number(e.target.value))} />
          </label>
          <button
            type="button"
            className="primary"
            disabled={create.isPending}
            onClick={async () => {
              setError(null);
              try {
                const link = await create.mutateAsync({ reportId, expiresInDays: days });
                setCreated(`${window.location.origin}${link.path}`);
                await refresh();
              } catch (err) {
                setError((err as Error).message);
              }
            }}
          >
            Create share link
          </button>
        </div>
      )}
      {error && <p role="alert" className="error">{error}</p>}
      {created && (
        <div className="notice share-created">
          <label htmlFor="share-url">Share link (shown once; copy it now)</label>
          <div className="row">
            <input id="share-url" readOnly value={created} size={70} onFocus={(e) => e.target.select()} data-testid="share-url" />
            <button type="button" onClick={() => navigator.clipboard?.writeText(created)}>
              Copy
            </button>
          </div>
        </div>
      )}
      {links.data && links.data.length > 0 && (
        <table className="table" data-testid="share-links">
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col" aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {links.data.map((l) => (
              <tr key={l.id}>
                <td>{formatTime(l.createdAt)}</td>
                <td>{formatTime(l.expiresAt)}</td>
                <td>{l.status}</td>
                <td>
                  {canChange && l.status === "active" && (
                    <button
                      type="button"
                      onClick={async () => {
                        await revoke.mutateAsync({ id: l.id });
                        await refresh();
                      }}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
