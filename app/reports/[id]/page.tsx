"use client";
import { use } from "react";
import { RequireUser } from "../../_components/require-user";
import { ReportView } from "./report-view";

export default function ReportPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = use(params);
  return (
    <RequireUser>
      <ReportView id={id} />
    </RequireUser>
  );
}
