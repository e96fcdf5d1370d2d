"use client";
/** The run page's account of episodes that could not run: how many, why, and where to see them. */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";
import { errorKindLabel } from "../../../lib/outcomes";

export function ErroredEpisodes({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.trajectories.errored.queryOptions({ runId }));
  if (!q.data || q.data.errored === 0) return null;
  const { episodes, errored, byKind } = q.data;
  return (
    <div className="card warn-card" role="note" data-testid="run-errored-episodes-card">
      <strong>
        {errored} of {episodes} episodes errored
      </strong>{" "}
      and are left out of every score (reward means, Avg@k, pass@k, pass^k) and of training: they could not run for reasons outside the policy.{" "}
      <Link href={`/runs/${runId}/trajectories?outcome=error`}>See them</Link>
      <ul className="small">
        {byKind.map((k) => (
          <li key={k.kind}>
            {errorKindLabel(k.kind)}: {k.count}
            {k.example ? <span className="muted"> — e.g. {k.example}</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
