"use client";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import superjson from "superjson";
import { useTRPC } from "../../_lib/trpc";
import { formatNumber, formatTime } from "../../_lib/format";
import { filterQuery, parseFilters } from "../_lib/filters";
import { isTypingTarget, type TurnRow, type VerdictRow } from "../_lib/types";
import { TurnCard } from "../_components/turn-card";
import { Verdicts } from "../_components/verdicts";
import { BfclOutcomeCard } from "../_components/bfcl-outcome";
import { errorKindLabel } from "../../../lib/outcomes";

const PAGE = 60;

/** What the outcome badge means (lib/outcomes.ts). */
export function outcomeHelp(outcome: string): string {
  if (outcome === "success") return "success: the benchmark's own verdict passed (τ²: reward 1.0; BFCL: the checker passed; checklist tasks: every item passed)";
  if (outcome === "failure") return "failure: the episode ran and the policy did not succeed (a partial reward is a failure)";
  if (outcome === "error") return "error: the episode could not run (infrastructure), so it is left out of every score";
  return outcome;
}

function turnFromHash(): number | null {
  const m = /^#turn-(\d+)$/.exec(window.location.hash);
  return m ? Number(m[1]) : null;
}

export function KeyboardHelp() {
  return (
    <details className="tv-keys" data-testid="keyboard-help">
      <summary>Keyboard</summary>
      <dl>
        <dt>
          <kbd>j</kbd> / <kbd>k</kbd>
        </dt>
        <dd>next / previous turn</dd>
        <dt>
          <kbd>J</kbd> / <kbd>K</kbd> or <kbd>]</kbd> / <kbd>[</kbd>
        </dt>
        <dd>next / previous trajectory (in the list's order and filters)</dd>
        <dt>
          <kbd>t</kbd>
        </dt>
        <dd>expand / collapse all thinking</dd>
        <dt>
          <kbd>u</kbd>
        </dt>
        <dd>back to the run's trajectory list</dd>
      </dl>
      <p className="small muted">Every turn has a link (#turn-N) you can share: it opens the trajectory scrolled to that turn.</p>
    </details>
  );
}

export function TrajectoryView({ id }: { id: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const search = useSearchParams();
  const filters = useMemo(() => parseFilters(search), [search]);
  const query = filterQuery(filters);

  const detail = useQuery(trpc.trajectories.get.queryOptions({ id, turnsLimit: PAGE }));
  const firstNext = detail.data?.nextTurnsFrom ?? null;
  const more = useInfiniteQuery(
    trpc.trajectories.turns.infiniteQueryOptions(
      { trajectoryId: id, limit: 100 },
      {
        enabled: firstNext != null,
        initialCursor: firstNext ?? 0,
        getNextPageParam: (last) => last.nextFrom ?? undefined,
      },
    ),
  );
  const t = detail.data?.trajectory;
  const neighbours = useQuery({
    ...trpc.trajectories.neighbours.queryOptions({ runId: t?.runId ?? "00000000-0000-4000-8000-000000000000", id, ...filters }),
    enabled: !!t,
  });

  const turns: TurnRow[] = useMemo(
    () => [...(detail.data?.turns ?? []), ...(more.data?.pages.flatMap((p) => p.turns) ?? [])],
    [detail.data, more.data],
  );
  const hasMore = firstNext != null && (more.data ? more.hasNextPage : true);
  const verdictsByTurn = useMemo(() => {
    const m = new Map<number, VerdictRow[]>();
    for (const v of detail.data?.verdicts ?? []) {
      if (v.turnIndex == null) continue;
      m.set(v.turnIndex, [...(m.get(v.turnIndex) ?? []), v]);
    }
    return m;
  }, [detail.data]);
  const unplaced = useMemo(() => (detail.data?.verdicts ?? []).filter((v) => v.turnIndex == null), [detail.data]);

  const [current, setCurrent] = useState<number | null>(null);
  const [target, setTarget] = useState<number | null>(null);

  // Deep link: #turn-N on load and on hash changes (also from the turn anchors).
  useEffect(() => {
    const onHash = () => setTarget(turnFromHash());
    onHash();
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [id]);

  // Bring the target turn in: load pages until it is there, then scroll to it and highlight it.
  const loadedMax = turns.length ? turns[turns.length - 1]!.index : -1;
  useEffect(() => {
    if (target == null || !detail.data) return;
    if (target > loadedMax && hasMore) {
      if (!more.isFetching && firstNext != null) void more.fetchNextPage();
      return;
    }
    const el = document.getElementById(`turn-${target}`);
    if (el) {
      el.scrollIntoView({ block: "start" });
      el.focus({ preventScroll: true });
      setCurrent(target);
    }
    setTarget(null);
  }, [target, loadedMax, hasMore, detail.data, more, firstNext]);

  // Load further pages as the end of the timeline comes into view.
  const sentinel = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasMore) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !more.isFetching && firstNext != null) void more.fetchNextPage();
    }, { rootMargin: "1200px" });
    io.observe(el);
    return () => io.disconnect();
  }, [hasMore, more, firstNext, turns.length]);

  // The turn j/k last moved to. Keys can come faster than renders: each press moves on from the previous
  // press, not from the highlighted turn (which is set a render later).
  const cursor = useRef<number | null>(null);
  const goTurn = useCallback(
    (delta: 1 | -1) => {
      if (turns.length === 0) return;
      const from = cursor.current ?? current;
      const pos = from == null ? (delta > 0 ? -1 : turns.length) : turns.findIndex((x) => x.index === from);
      const next = turns[Math.min(turns.length - 1, Math.max(0, pos + delta))]!;
      cursor.current = next.index;
      if (delta > 0 && pos >= turns.length - 2 && hasMore && !more.isFetching) void more.fetchNextPage();
      history.replaceState(null, "", `#turn-${next.index}`);
      setTarget(next.index);
    },
    [turns, current, hasMore, more],
  );

  // J/K pressed before the neighbours arrived is remembered and carried out when they do.
  const [pendingNav, setPendingNav] = useState<"next" | "previous" | null>(null);
  const goTrajectory = useCallback(
    (which: "next" | "previous") => {
      if (!neighbours.data) return setPendingNav(which);
      const n = neighbours.data[which];
      if (n) router.push(`/trajectories/${n.id}${query ? `?${query}` : ""}`);
    },
    [neighbours.data, router, query],
  );
  useEffect(() => {
    if (!pendingNav || !neighbours.data) return;
    setPendingNav(null);
    goTrajectory(pendingNav);
  }, [pendingNav, neighbours.data, goTrajectory]);
  useEffect(() => {
    setCurrent(null);
    cursor.current = null;
    setPendingNav(null);
  }, [id]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return;
      if (e.key === "j") goTurn(1);
      else if (e.key === "k") goTurn(-1);
      else if (e.key === "J" || e.key === "]") goTrajectory("next");
      else if (e.key === "K" || e.key === "[") goTrajectory("previous");
      else if (e.key === "t") {
        const all = [...document.querySelectorAll<HTMLDetailsElement>("details.tv-think")];
        const open = !all.some((d) => d.open);
        all.forEach((d) => (d.open = open));
      } else if (e.key === "u" && t) router.push(`/runs/${t.runId}/trajectories${query ? `?${query}` : ""}`);
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [goTurn, goTrajectory, router, t, query]);

  const [downloading, setDownloading] = useState(false);
  async function download() {
    setDownloading(true);
    try {
      const raw = await qc.fetchQuery(trpc.trajectories.raw.queryOptions({ id }));
      const blob = new Blob([JSON.stringify(superjson.serialize(raw).json, null, 2)], { type: "application/json" });
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = url;
      a.download = `trajectory-${id}.json`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } finally {
      setDownloading(false);
    }
  }

  if (detail.error) return <p role="alert" className="error">{detail.error.message}</p>;
  if (!detail.data || !t) return <p className="muted">Loading trajectory…</p>;
  const groupHref = `/runs/${t.runId}/trajectories?${new URLSearchParams({ ...(query ? Object.fromEntries(new URLSearchParams(query)) : {}), group: `${t.phase}|${t.step}|${t.groupId}` })}`;
  const lastIndex = t.numTurns - 1;

  return (
    <div className="tv" data-testid="trajectory-view">
      <nav className="small tv-crumbs" aria-label="Breadcrumb">
        <Link href={`/runs/${t.runId}`}>{t.run.name}</Link> ›{" "}
        <Link href={`/runs/${t.runId}/trajectories${query ? `?${query}` : ""}`}>trajectories</Link> › step {t.step}
      </nav>
      <div className="page-head">
        <h1>
          Trajectory · step {t.step} · rollout {t.rolloutIndex}
        </h1>
        <span className={`tv-outcome o-${t.outcome}`} data-testid="trajectory-outcome" title={outcomeHelp(t.outcome)}>
          {t.outcome}
        </span>
        <div className="spacer" />
        <button type="button" onClick={() => goTrajectory("previous")} disabled={!neighbours.data?.previous} title="previous trajectory (K or [)">
          ‹ Previous
        </button>
        <button type="button" onClick={() => goTrajectory("next")} disabled={!neighbours.data?.next} title="next trajectory (J or ])">
          Next ›
        </button>
        <button type="button" onClick={download} disabled={downloading}>
          {downloading ? "Preparing…" : "Download JSON"}
        </button>
      </div>
      {(t.privateAttempts > 0 || t.phase === "private") && (
        <p className="card tt-banner" data-testid="test-time-link">
          {t.phase === "private"
            ? `Private test-time attempt ${t.rolloutIndex + 1}: the policy rehearsed the task in its own imagined world before the committed execution; nothing here was executed for real.`
            : `This execution followed ${t.privateAttempts} private test-time attempt${t.privateAttempts === 1 ? "" : "s"} and was conditioned on their memory.`}{" "}
          <Link href={`/trajectories/${t.id}/test-time`}>View the test-time episode</Link>
        </p>
      )}
      {t.outcome === "error" && (
        <div className="card error-card" role="alert" data-testid="trajectory-error">
          <strong>This episode could not run</strong> ({errorKindLabel(t.errorKind)}): {t.errorCause ?? t.terminationReason}. It is an infrastructure error, not a
          policy failure, and is left out of the run&apos;s scores and of training.
        </div>
      )}
      <div className="card tv-summary">
        <dl className="tv-facts">
          <div>
            <dt>reward</dt>
            <dd data-testid="trajectory-reward">{formatNumber(t.reward)}</dd>
          </div>
          <div>
            <dt>termination</dt>
            <dd>{t.terminationReason}</dd>
          </div>
          <div>
            <dt>instance</dt>
            <dd>{t.instanceId}</dd>
          </div>
          <div>
            <dt>group</dt>
            <dd>
              <Link href={groupHref}>compare the group&apos;s rollouts</Link>
            </dd>
          </div>
          <div>
            <dt>phase · paradigm</dt>
            <dd>
              {t.phase} · {t.paradigm}
            </dd>
          </div>
          <div>
            <dt>turns</dt>
            <dd>{t.numTurns}</dd>
          </div>
          <div>
            <dt>tokens act / rehearse</dt>
            <dd>
              {t.actTokens.toLocaleString()} / {t.rehearseTokens.toLocaleString()}
            </dd>
          </div>
          <div>
            <dt>mean fidelity</dt>
            <dd>{formatNumber(t.fidelity)}</dd>
          </div>
        </dl>
        <KeyboardHelp />
        <details className="tv-keys tv-summary-json">
          <summary>Rollout summary</summary>
          <pre className="tv-json">{JSON.stringify(t.summary, null, 2)}</pre>
        </details>
      </div>
      <BfclOutcomeCard summary={t.summary} />
      {unplaced.length > 0 && (
        <div className="card">
          <Verdicts verdicts={unplaced} title="Checklist verdicts not tied to one step" />
        </div>
      )}
      {t.run.archivedAt && turns.length === 0 && (
        <p className="card" data-testid="turns-archived">
          This run's turns were archived {formatTime(t.run.archivedAt)}. <Link href={`/runs/${t.runId}`}>Restore them on the run page</Link> to read them here.
        </p>
      )}
      <div className="tv-timeline" data-testid="turn-timeline">
        {turns.map((turn) => (
          <TurnCard
            key={turn.index}
            turn={turn}
            verdicts={verdictsByTurn.get(turn.index) ?? []}
            current={current === turn.index}
            terminationReason={turn.index === lastIndex ? t.terminationReason : null}
            errorCause={turn.index === lastIndex ? t.errorCause : null}
          />
        ))}
        <div ref={sentinel} className="small muted tv-more">
          {hasMore ? `Loading turns ${loadedMax + 1}–${t.numTurns - 1}…` : `${turns.length} turns`}
        </div>
      </div>
    </div>
  );
}
