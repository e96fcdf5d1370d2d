"use client";
import { Suspense, use } from "react";
import { RequireUser } from "../../_components/require-user";
import { TrajectoryView } from "./trajectory-view";

export default function TrajectoryPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = use(params);
  return (
    <RequireUser>
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <TrajectoryView id={id} />
      </Suspense>
    </RequireUser>
  );
}
