"use client";
import { Suspense, use } from "react";
import { RequireUser } from "../../../_components/require-user";
import { TrajectoryBrowser } from "./trajectory-browser";

export default function RunTrajectoriesPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = use(params);
  return (
    <RequireUser>
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <TrajectoryBrowser runId={id} />
      </Suspense>
    </RequireUser>
  );
}
