"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useTRPC } from "../_lib/trpc";

/** Client guard: signed-out visitors go to the sign-in page. The API enforces access on its own. */
export function RequireUser({ children }: { children: React.ReactNode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const me = useQuery(trpc.users.me.queryOptions());
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
