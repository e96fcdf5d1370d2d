"use client";
/**
 * A trajectory's turns as the trajectory page shows them (TurnCard, verdicts on the step they judge, the
 * ending on the last turn), loaded in pages, for pages that show several trajectories at once (the
 * test-time episode view). Card ids are prefixed so they stay unique on the page.
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTRPC } from "../../_lib/trpc";
import type { TurnRow, VerdictRow } from "../_lib/types";
import { TurnCard } from "./turn-card";
import { Verdicts } from "./verdicts";

const FIRST_PAGE = 60;

export function TrajectoryTimeline({ id, anchorPrefix }: { id: string; anchorPrefix: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.trajectories.get.queryOptions({ id, turnsLimit: FIRST_PAGE }));
  const firstNext = detail.data?.nextTurnsFrom ?? null;
  const more = useInfiniteQuery(
    trpc.trajectories.turns.infiniteQueryOptions(
      { trajectoryId: id, limit: 100 },
      { enabled: firstNext != null, initialCursor: firstNext ?? 0, getNextPageParam: (last) => last.nextFrom ?? undefined },
    ),
  );
  const turns: TurnRow[] = useMemo(() => [...(detail.data?.turns ?? []), ...(more.data?.pages.flatMap((p) => p.turns) ?? [])], [detail.data, more.data]);
  const verdictsByTurn = useMemo(() => {
    const m = new Map<number, VerdictRow[]>();
    for (const v of detail.data?.verdicts ?? []) if (v.turnIndex != null) m.set(v.turnIndex, [...(m.get(v.turnIndex) ?? []), v]);
    return m;
  }, [detail.data]);
  if (detail.error) return <p role="alert" className="error">{detail.error.message}</p>;
  if (!detail.data) return <p className="muted small">Loading turns…</p>;
  const t = detail.data.trajectory;
  const unplaced = detail.data.verdicts.filter((v) => v.turnIndex == null);
  const hasMore = firstNext != null && (more.data ? more.hasNextPage : true);
  return (
    <div className="tv-timeline" data-testid="turn-timeline">
      {unplaced.length > 0 && <Verdicts verdicts={unplaced} title="Checklist verdicts not tied to one step" />}
      {turns.map((turn) => (
        <TurnCard
          key={turn.index}
          turn={turn}
          verdicts={verdictsByTurn.get(turn.index) ?? []}
          current={false}
          terminationReason={turn.index === t.numTurns - 1 ? t.terminationReason : null}
          anchorPrefix={anchorPrefix}
        />
      ))}
      {turns.length === 0 && <p className="muted small">No turns: the episode ended before its first generation ({t.terminationReason}).</p>}
      {hasMore && (
        <button type="button" onClick={() => void more.fetchNextPage()} disabled={more.isFetching}>
          {more.isFetching ? "Loading…" : `Load turns ${turns.length}–${t.numTurns - 1}`}
        </button>
      )}
    </div>
  );
}
