"use client";
import { Suspense } from "react";
import { RequireUser } from "../_components/require-user";
import { CompareView } from "./compare-view";

export default function ComparePage() {
  return (
    <RequireUser>
      <Suspense>
        <CompareView />
      </Suspense>
    </RequireUser>
  );
}
