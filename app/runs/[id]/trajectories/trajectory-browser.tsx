"use client";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { formatNumber } from "../../../_lib/format";
import { filterQuery, outcomes, paradigms, parseFilters, phases, withFilters, type TrajectoryFilterValues } from "../../../trajectories/_lib/filters";
import { isTypingTarget, type ListRow } from "../../../trajectories/_lib/types";
import { GroupView, groupParam, parseGroupParam, type GroupKey } from "./group-view";

const ROW_HEIGHT = 34;
const VIEWPORT = 600;
const OVERSCAN = 12;
const PAGE = 200;

/** Fixed-height windowing: only the rows in view (plus overscan) are in the DOM. */
function useWindow(count: number) {
  const ref = useRef<HTMLDivElement | null>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const onScroll = useCallback(() => setScrollTop(ref.current?.scrollTop ?? 0), []);
  const start = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const end = Math.min(count, Math.ceil((scrollTop + VIEWPORT) / ROW_HEIGHT) + OVERSCAN);
  const scrollToRow = useCallback((i: number) => {
    const el = ref.current;
    if (!el) return;
    const top = i * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  }, []);
  return { ref, onScroll, start, end, scrollToRow };
}

function NumberFilter({ label, value, step, onChange }: { label: string; value: number | undefined; step?: string; onChange: (v: number | undefined) => void }) {
  const [text, setText] = useState(value === undefined ? "" : String(value));
  useEffect(() => setText(value === undefined ? "" : String(value)), [value]);
  // Apply after a short pause so typing "120" is one query, not three.
  useEffect(() => {
    const parsed = text.trim() === "" ? undefined : Number(text);
    if (parsed !== undefined && !Number.isFinite(parsed)) return;
    if (parsed === value) return;
    const h = setTimeout(() => onChange(parsed), 350);
    return () => clearTimeout(h);
  }, [text, value, onChange]);
  return (
    <label>
      {label}
      <input type="number" inputMode="decimal" step={step ?? "1"} value={text} onChange={(e) => setText(e.target.value)} className="tb-num" />
    </label>
  );
}

export function TrajectoryBrowser({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const search = useSearchParams();
  const filters = useMemo(() => parseFilters(search), [search]);
  const query = filterQuery(filters);
  const group = parseGroupParam(search.get("group"));

  const run = useQuery(trpc.runs.get.queryOptions({ id: runId }));
  const facets = useQuery(trpc.trajectories.facets.queryOptions({ runId }));
  const list = useInfiniteQuery(
    trpc.trajectories.list.infiniteQueryOptions(
      { runId, limit: PAGE, ...filters },
      { getNextPageParam: (last) => last.nextCursor ?? undefined, placeholderData: keepPreviousData },
    ),
  );
  const items: ListRow[] = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);

  const setFilters = useCallback(
    (patch: Partial<TrajectoryFilterValues>) => {
      const next = withFilters(search.toString(), { ...parseFilters(search), ...patch });
      router.replace(`${pathname}?${next.toString()}`, { scroll: false });
    },
    [search, router, pathname],
  );
  const setGroup = useCallback(
    (g: string | null) => {
      const next = new URLSearchParams(search.toString());
      if (g) next.set("group", g);
      else next.delete("group");
      router.replace(`${pathname}?${next.toString()}`, { scroll: false });
    },
    [search, router, pathname],
  );

  const win = useWindow(items.length);
  // Fetch the next page as the window nears the end of what is loaded.
  useEffect(() => {
    if (win.end >= items.length - 40 && list.hasNextPage && !list.isFetchingNextPage) void list.fetchNextPage();
  }, [win.end, items.length, list]);

  const [selected, setSelectedState] = useState(0);
  // Read by the key handler: keys can come faster than the render that re-binds it with the new state.
  const selectedRef = useRef(0);
  const setSelected = useCallback((i: number) => {
    selectedRef.current = i;
    setSelectedState(i);
  }, []);
  useEffect(() => setSelected(0), [query, setSelected]);
  const open = useCallback((row: ListRow | undefined) => row && router.push(`/trajectories/${row.id}${query ? `?${query}` : ""}`), [router, query]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target) || items.length === 0) return;
      const selected = Math.min(selectedRef.current, items.length - 1);
      let next = selected;
      if (e.key === "j") next = Math.min(items.length - 1, selected + 1);
      else if (e.key === "k") next = Math.max(0, selected - 1);
      else if (e.key === "Enter" && (e.target as HTMLElement).tagName !== "A" && (e.target as HTMLElement).tagName !== "BUTTON") return open(items[selected]);
      else if (e.key === "g") {
        const r = items[selected]!;
        return setGroup(groupParam({ phase: r.phase as GroupKey["phase"], step: r.step, groupId: r.groupId }));
      } else return;
      e.preventDefault();
      setSelected(next);
      win.scrollToRow(next);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [items, open, setGroup, win, setSelected]);

  const f = facets.data;
  const filtered = Object.keys(filters).length > 0;
  return (
    <div className="tb" data-testid="trajectory-browser">
      <nav className="small tv-crumbs" aria-label="Breadcrumb">
        <Link href={`/runs/${runId}`}>{run.data?.name ?? "run"}</Link> › trajectories
      </nav>
      <div className="page-head">
        <h1>Trajectories</h1>
        <span className="small muted" data-testid="trajectory-count">
          {f ? `${f.total.toLocaleString()} in this run` : ""}
          {filtered ? ` · ${items.length.toLocaleString()}${list.hasNextPage ? "+" : ""} match` : ""}
        </span>
        <div className="spacer" />
        <details className="tv-keys">
          <summary>Keyboard</summary>
          <dl>
            <dt>
              <kbd>j</kbd> / <kbd>k</kbd>
            </dt>
            <dd>move the selection</dd>
            <dt>
              <kbd>Enter</kbd>
            </dt>
            <dd>open the selected trajectory</dd>
            <dt>
              <kbd>g</kbd>
            </dt>
            <dd>show the selected rollout&apos;s group side by side</dd>
          </dl>
        </details>
      </div>
      <form className="filters tb-filters" aria-label="Trajectory filters" onSubmit={(e) => e.preventDefault()}>
        <NumberFilter label="Step from" value={filters.stepMin} onChange={(v) => setFilters({ stepMin: v })} />
        <NumberFilter label="Step to" value={filters.stepMax} onChange={(v) => setFilters({ stepMax: v })} />
        <NumberFilter label="Reward ≥" step="0.05" value={filters.rewardMin} onChange={(v) => setFilters({ rewardMin: v })} />
        <NumberFilter label="Reward ≤" step="0.05" value={filters.rewardMax} onChange={(v) => setFilters({ rewardMax: v })} />
        <label>
          Termination reason
          <select value={filters.terminationReason ?? ""} onChange={(e) => setFilters({ terminationReason: e.target.value || undefined })}>
            <option value="">any</option>
            {f?.terminationReasons.map((r) => (
              <option key={r.value} value={r.value}>
                {r.value} ({r.count})
              </option>
            ))}
          </select>
        </label>
        <label>
          Outcome
          <select value={filters.outcome ?? ""} onChange={(e) => setFilters({ outcome: (e.target.value || undefined) as TrajectoryFilterValues["outcome"] })}>
            <option value="">any</option>
            {outcomes.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </label>
        <label>
          Instance
          <input
            list="tb-instances"
            defaultValue={filters.instanceId ?? ""}
            key={filters.instanceId ?? ""}
            placeholder="any"
            onBlur={(e) => setFilters({ instanceId: e.target.value.trim() || undefined })}
            onKeyDown={(e) => {
              if (e.key === "Enter") setFilters({ instanceId: (e.target as HTMLInputElement).value.trim() || undefined });
            }}
          />
          <datalist id="tb-instances">
            {f?.instances.map((i) => <option key={i} value={i} />)}
          </datalist>
        </label>
        <label>
          Phase
          <select value={filters.phase ?? ""} onChange={(e) => setFilters({ phase: (e.target.value || undefined) as TrajectoryFilterValues["phase"] })}>
            <option value="">any</option>
            {phases.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        {(f?.suites.length ?? 0) > 0 || filters.suite ? (
          <label>
            Evaluation suite
            <select value={filters.suite ?? ""} onChange={(e) => setFilters({ suite: e.target.value || undefined })} data-testid="suite-filter">
              <option value="">any</option>
              {[...new Set([...(f?.suites ?? []), ...(filters.suite ? [filters.suite] : [])])].map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Paradigm
          <select value={filters.paradigm ?? ""} onChange={(e) => setFilters({ paradigm: (e.target.value || undefined) as TrajectoryFilterValues["paradigm"] })}>
            <option value="">any</option>
            {paradigms.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort
          <select value={filters.sort ?? "step"} onChange={(e) => setFilters({ sort: e.target.value === "step" ? undefined : (e.target.value as TrajectoryFilterValues["sort"]) })}>
            <option value="step">newest step, groups together</option>
            <option value="reward_asc">lowest reward first</option>
            <option value="reward_desc">highest reward first</option>
          </select>
        </label>
        {filtered && (
          <button type="button" className="tb-clear" onClick={() => router.replace(`${pathname}${group ? `?group=${encodeURIComponent(groupParam(group))}` : ""}`)}>
            Clear filters
          </button>
        )}
      </form>

      {group && <GroupView runId={runId} group={group} query={query} onClose={() => setGroup(null)} />}

      {list.error && <p role="alert" className="error">{list.error.message}</p>}
      <div className="tb-table" role="table" aria-label="Trajectories" aria-rowcount={items.length}>
        <div className="tb-row tb-header" role="row">
          <span role="columnheader">step</span>
          <span role="columnheader">rollout</span>
          <span role="columnheader">instance</span>
          <span role="columnheader">reward</span>
          <span role="columnheader">outcome</span>
          <span role="columnheader">termination</span>
          <span role="columnheader">turns</span>
          <span role="columnheader">tokens act/reh.</span>
          <span role="columnheader">fidelity</span>
          <span role="columnheader">group</span>
        </div>
        <div className="tb-viewport" ref={win.ref} onScroll={win.onScroll} style={{ height: Math.min(VIEWPORT, Math.max(items.length, 1) * ROW_HEIGHT + 2) }} data-testid="trajectory-list">
          <div style={{ height: items.length * ROW_HEIGHT, position: "relative" }}>
            {items.slice(win.start, win.end).map((t, i) => {
              const index = win.start + i;
              const newGroup = !filters.sort && (index === 0 || items[index - 1]!.groupId !== t.groupId || items[index - 1]!.step !== t.step);
              return (
                <div
                  key={t.id}
                  role="row"
                  aria-rowindex={index + 1}
                  aria-selected={index === selected}
                  className={`tb-row${index === selected ? " selected" : ""}${newGroup ? " group-start" : ""}`}
                  style={{ position: "absolute", top: index * ROW_HEIGHT, left: 0, right: 0, height: ROW_HEIGHT }}
                  onMouseDown={() => setSelected(index)}
                  data-testid="trajectory-row"
                >
                  <span role="cell">
                    <Link href={`/trajectories/${t.id}${query ? `?${query}` : ""}`} className="tb-open">
                      {t.step}
                      {t.phase === "eval" ? " · eval" : t.phase.startsWith("suite:") ? ` · ${t.phase.slice("suite:".length)}` : ""}
                    </Link>
                  </span>
                  <span role="cell">{t.rolloutIndex}</span>
                  <span role="cell" className="tb-ellipsis" title={t.instanceId}>
                    {t.instanceId}
                  </span>
                  <span role="cell" className="tb-reward-cell">
                    <span className="tb-bar" style={{ width: `${Math.max(0, Math.min(1, t.reward)) * 100}%` }} />
                    <span>{formatNumber(t.reward)}</span>
                  </span>
                  <span role="cell">
                    <span className={`tv-outcome o-${t.outcome}`} title={t.errorCause ?? undefined}>
                      {t.outcome}
                    </span>
                  </span>
                  <span role="cell" className="tb-ellipsis" title={t.errorCause ? `${t.terminationReason}: ${t.errorCause}` : t.terminationReason}>
                    {t.privateAttempts > 0 && (
                      <Link
                        href={`/trajectories/${t.id}/test-time`}
                        className="tv-outcome o-private tb-tt"
                        title={`test-time episode: ${t.privateAttempts} private attempts, their assessments, the memory and this committed execution`}
                        data-testid="test-time-episode-link"
                      >
                        test-time ×{t.privateAttempts}
                      </Link>
                    )}
                    {t.terminationReason}
                  </span>
                  <span role="cell">{t.numTurns}</span>
                  <span role="cell">
                    {t.actTokens} / {t.rehearseTokens}
                  </span>
                  <span role="cell">{formatNumber(t.fidelity, 2)}</span>
                  <span role="cell">
                    <button
                      type="button"
                      className="tv-mini"
                      onClick={() => setGroup(groupParam({ phase: t.phase as GroupKey["phase"], step: t.step, groupId: t.groupId }))}
                      aria-label={`show group of step ${t.step} rollout ${t.rolloutIndex}`}
                    >
                      group
                    </button>
                  </span>
                </div>
              );
            })}
          </div>
        </div>
        {list.isFetching && <div className="small muted tb-status">Loading…</div>}
        {!list.isFetching && items.length === 0 && <div className="muted tb-status">No trajectories match these filters.</div>}
      </div>
    </div>
  );
}
