"use client";
import { Suspense } from "react";
import { RequireUser } from "../../_components/require-user";
import { NewReportForm } from "./new-report-form";

export default function NewReportPage() {
  return (
    <RequireUser>
      <Suspense>
        <NewReportForm />
      </Suspense>
    </RequireUser>
  );
}
