"use client";
import { use } from "react";
import { RequireUser } from "../../_components/require-user";
import { RunView } from "./run-view";

export default function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = use(params);
  return (
    <RequireUser>
      <RunView id={id} />
    </RequireUser>
  );
}
