"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useLiveUpdates } from "../_lib/live";
import { useTRPC } from "../_lib/trpc";

/**
 * Client guard: signed-out visitors go to the sign-in page (the API enforces access on its own).
 * Signed-in pages are live: server change signals refresh the queries they make stale.
 */
export function RequireUser({ children }: { children: React.ReactNode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const me = useQuery(trpc.users.me.queryOptions());
  useLiveUpdates(!!me.data);
  useEffect(() => {
    if (me.isSuccess && !me.data) router.replace("/sign-in");
  }, [me.isSuccess, me.data, router]);
  if (!me.data) return <p className="muted">Loading…</p>;
  return <>{children}</>;
}

export function useMe() {
  const trpc = useTRPC();
  return useQuery(trpc.users.me.queryOptions()).data ?? null;
}
