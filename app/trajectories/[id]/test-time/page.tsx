"use client";
import { Suspense, use } from "react";
import { RequireUser } from "../../../_components/require-user";
import { TestTimeEpisodeView } from "./test-time-episode";

export default function TestTimeEpisodePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = use(params);
  return (
    <RequireUser>
      <Suspense fallback={<p className="muted">Loading…</p>}>
        <TestTimeEpisodeView id={id} />
      </Suspense>
    </RequireUser>
  );
}
