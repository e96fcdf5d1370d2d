"use client";
import { Suspense } from "react";
import { RequireUser } from "../../_components/require-user";
import { TestTimeComparisonForm } from "./test-time-form";

export default function TestTimeComparisonPage() {
  return (
    <RequireUser>
      <Suspense>
        <TestTimeComparisonForm />
      </Suspense>
    </RequireUser>
  );
}
