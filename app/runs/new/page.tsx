"use client";
import { Suspense } from "react";
import { RequireUser } from "../../_components/require-user";
import { NewRunForm } from "./new-run-form";

export default function NewRunPage() {
  return (
    <RequireUser>
      <Suspense>
        <NewRunForm />
      </Suspense>
    </RequireUser>
  );
}
