"use client";
import { Suspense } from "react";
import { RequireUser } from "../_components/require-user";
import { RunsTable } from "./runs-table";

export default function RunsPage() {
  return (
    <RequireUser>
      <Suspense>
        <RunsTable />
      </Suspense>
    </RequireUser>
  );
}
