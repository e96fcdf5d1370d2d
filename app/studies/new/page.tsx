"use client";
import { Suspense } from "react";
import { RequireUser } from "../../_components/require-user";
import { NewStudyForm } from "./new-study-form";

export default function NewStudyPage() {
  return (
    <RequireUser>
      <Suspense>
        <NewStudyForm />
      </Suspense>
    </RequireUser>
  );
}
