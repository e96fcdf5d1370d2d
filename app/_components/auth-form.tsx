"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { authClient } from "../_lib/auth-client";

export function AuthForm({ mode }: { mode: "sign-in" | "sign-up" }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const email = String(form.get("email") ?? "");
    const password = String(form.get("password") ?? "");
    setBusy(true);
    setError(null);
    // The server limits sign-ins and sign-ups per address and says for how long (x-retry-after, seconds).
    let retryAfterS: number | null = null;
    const fetchOptions = {
      onError: (ctx: { response: Response }) => {
        const s = Number(ctx.response.headers.get("x-retry-after"));
        retryAfterS = ctx.response.status === 429 && Number.isFinite(s) && s > 0 ? Math.ceil(s) : null;
      },
    };
    const res =
      mode === "sign-up"
        ? await authClient.signUp.email({ email, password, name: String(form.get("name") ?? "") || email.split("@")[0]!, fetchOptions })
        : await authClient.signIn.email({ email, password, fetchOptions });
    setBusy(false);
    if (res.error) {
      if (res.error.status === 429) {
        setError(`Too many attempts from this address. Try again in ${retryAfterS ?? 10} s.`);
        return;
      }
      setError(res.error.message ?? "could not sign in");
      return;
    }
    await qc.invalidateQueries();
    router.push("/runs");
  }

  return (
    <div className="auth card">
      <h1>{mode === "sign-up" ? "Create an account" : "Sign in"}</h1>
      {mode === "sign-up" && <p className="muted">The first account on a fresh install becomes the admin.</p>}
      <form onSubmit={onSubmit} className="form">
        {mode === "sign-up" && (
          <label>
            Name
            <input name="name" autoComplete="name" />
          </label>
        )}
        <label>
          Email
          <input name="email" type="email" required autoComplete="email" />
        </label>
        <label>
          Password
          <input name="password" type="password" required minLength={8} autoComplete={mode === "sign-up" ? "new-password" : "current-password"} />
        </label>
        {error && <p role="alert" className="error">{error}</p>}
        <button type="submit" className="primary" disabled={busy}>
          {mode === "sign-up" ? "Create account" : "Sign in"}
        </button>
      </form>
      <p className="muted">
        {mode === "sign-up" ? (
          <>Already have an account? <Link href="/sign-in">Sign in</Link></>
        ) : (
          <>No account yet? <Link href="/sign-up">Create one</Link></>
        )}
      </p>
    </div>
  );
}
