"use client";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../_lib/trpc";
import { formatDuration, formatNumber, formatTime } from "../_lib/format";
import { ProgressBar, progressUnit, RunTrouble, StatusBadge } from "../_components/status";
import { useMe } from "../_components/require-user";

const statuses = ["queued", "running", "succeeded", "failed", "cancelled"] as const;
type Status = (typeof statuses)[number];

/** Key metrics shown in the table (denormalised on the run, never joined from metric points). */
const keyMetrics = [
  { key: "reward/mean", label: "Reward" },
  { key: "fidelity/mean", label: "Fidelity" },
];

export function RunsTable() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const me = useMe();
  const search = params.get("q") ?? "";
  const status = params.getAll("status").filter((s): s is Status => (statuses as readonly string[]).includes(s));
  const kind = (params.get("kind") as "train" | "eval" | null) ?? undefined;
  const tag = params.get("tag") ?? undefined;

  const input = { limit: 50, search: search || undefined, status: status.length ? status : undefined, kind, tag };
  const runs = useInfiniteQuery(
    trpc.runs.list.infiniteQueryOptions(input, {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      // Changes made while this table was not mounted produced no signal here: refetch on every visit.
      staleTime: 0,
    }),
  );

  function setParam(name: string, values: string[]) {
    const next = new URLSearchParams(params.toString());
    next.delete(name);
    values.filter(Boolean).forEach((v) => next.append(name, v));
    router.replace(`${pathname}?${next.toString()}`);
  }

  const items = runs.data?.pages.flatMap((p) => p.items) ?? [];
  // Runs ticked for comparison (kept across filter changes; at most 8).
  const [compareIds, setCompareIds] = useState<string[]>([]);
  return (
    <div>
      <div className="page-head">
        <h1>Runs</h1>
        {me && me.role !== "viewer" && (
          <>
            <Link className="button primary" href="/runs/new">
              New run
            </Link>
            <Link className="button" href="/runs/test-time" title="No rehearsal vs parallel vs sequential test-time rehearsal on the same tasks, laid out as the paper's Table 3">
              Test-time comparison
            </Link>
          </>
        )}
        <div className="spacer" />
        {compareIds.length >= 2 ? (
          <Link className="button" href={`/compare?runs=${compareIds.join(",")}`} data-testid="compare-selected">
            Compare {compareIds.length} runs
          </Link>
        ) : (
          <span className="muted small">Tick two or more runs to compare them</span>
        )}
        <Link className="button" href="/reports">
          Reports
        </Link>
      </div>
      <div className="filters">
        <label>
          Search
          <input defaultValue={search} placeholder="run name" onChange={(e) => setParam("q", [e.target.value])} aria-label="Search runs" />
        </label>
        <label>
          Status
          <select value={status[0] ?? ""} onChange={(e) => setParam("status", [e.target.value])} aria-label="Filter by status">
            <option value="">any</option>
            {statuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Kind
          <select value={kind ?? ""} onChange={(e) => setParam("kind", [e.target.value])} aria-label="Filter by kind">
            <option value="">any</option>
            <option value="train">train</option>
            <option value="eval">eval</option>
          </select>
        </label>
        <label>
          Tag
          <input defaultValue={tag ?? ""} onChange={(e) => setParam("tag", [e.target.value])} aria-label="Filter by tag" />
        </label>
      </div>
      <table className="table" data-testid="runs-table">
        <thead>
          <tr>
            <th>Compare</th>
            <th>Name</th>
            <th>Status</th>
            <th>Progress</th>
            <th>ETA</th>
            {keyMetrics.map((m) => (
              <th key={m.key}>{m.label} (latest / best)</th>
            ))}
            <th>Paradigm</th>
            <th>Node</th>
            <th>Tags</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => {
            const latest = r.latestMetrics as Record<string, number>;
            const best = r.bestMetrics as Record<string, number>;
            return (
              <tr key={r.id} data-run-id={r.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Compare ${r.name}`}
                    checked={compareIds.includes(r.id)}
                    disabled={!compareIds.includes(r.id) && compareIds.length >= 8}
                    onChange={(e) => setCompareIds((ids) => (e.target.checked ? [...ids, r.id] : ids.filter((id) => id !== r.id)))}
                  />
                </td>
                <td>
                  <Link href={`/runs/${r.id}`}>{r.name}</Link>
                  <div className="muted small">{r.kind}</div>
                </td>
                <td>
                  <StatusBadge status={r.status} detail={r.statusDetail} />
                  <RunTrouble status={r.status} error={r.error} latestMetrics={r.latestMetrics} />
                </td>
                <td>
                  <ProgressBar step={r.progressStep} total={r.totalSteps} unit={progressUnit(r.kind)} />
                </td>
                <td>{r.status === "running" ? formatDuration(r.etaSeconds) : "—"}</td>
                {keyMetrics.map((m) => (
                  <td key={m.key}>
                    {formatNumber(latest[m.key])} / {formatNumber(best[m.key])}
                  </td>
                ))}
                <td>{r.paradigm}</td>
                <td>{r.policyNode}</td>
                <td>
                  {r.tags.map((t) => (
                    <button key={t} className="tag" onClick={() => setParam("tag", [t])}>
                      {t}
                    </button>
                  ))}
                </td>
                <td className="small">{formatTime(r.createdAt)}</td>
              </tr>
            );
          })}
          {items.length === 0 && !runs.isLoading && (
            <tr>
              <td colSpan={11} className="muted">
                No runs match. {me && me.role !== "viewer" ? <Link href="/runs/new">Launch one.</Link> : null}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {runs.hasNextPage && (
        <button onClick={() => runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          Load more
        </button>
      )}
    </div>
  );
}
