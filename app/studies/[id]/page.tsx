"use client";
import { use } from "react";
import { RequireUser } from "../../_components/require-user";
import { StudyView } from "./study-view";

export default function StudyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = use(params);
  return (
    <RequireUser>
      <StudyView id={id} />
    </RequireUser>
  );
}
