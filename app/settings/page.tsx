"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../_lib/trpc";
import { formatTime } from "../_lib/format";
import { RequireUser, useMe } from "../_components/require-user";

function Tokens() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const create = useMutation(trpc.tokens.create.mutationOptions());
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions());
  const [name, setName] = useState("");
  const [fresh, setFresh] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
  return (
    <section className="card">
      <h2>API tokens</h2>
      <p className="muted">
        Send as <code>Authorization: Bearer &lt;token&gt;</code> to the <a href="/api-docs">REST API</a>, or store it for the CLI with{" "}
        <code>npx envace login --url &lt;this server&apos;s URL&gt;</code>. A token acts as you and is shown once.
      </p>
      <form
        className="row"
        onSubmit={async (e) => {
          e.preventDefault();
          const t = await create.mutateAsync({ name });
          setFresh(t.token);
          setName("");
          refresh();
        }}
      >
        <label>
          Token name <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <button type="submit" className="primary">Create token</button>
      </form>
      {fresh && (
        <p className="notice" role="status">
          Copy it now, it will not be shown again: <code data-testid="new-token">{fresh}</code>
        </p>
      )}
      <table className="table">
        <thead>
          <tr><th>Name</th><th>Prefix</th><th>Created</th><th>Last used</th><th>Status</th><th /></tr>
        </thead>
        <tbody>
          {tokens.data?.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td><code>{t.prefix}…</code></td>
              <td>{formatTime(t.createdAt)}</td>
              <td>{formatTime(t.lastUsedAt)}</td>
              <td>{t.revokedAt ? "revoked" : "active"}</td>
              <td>{!t.revokedAt && <button onClick={async () => { await revoke.mutateAsync({ id: t.id }); refresh(); }}>Revoke</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Users() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const setRole = useMutation(trpc.users.setRole.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="card">
      <h2>Members</h2>
      {error && <p role="alert" className="error">{error}</p>}
      <table className="table">
        <thead><tr><th>Name</th><th>Email</th><th>Role</th><th>Joined</th></tr></thead>
        <tbody>
          {users.data?.map((u) => (
            <tr key={u.id}>
              <td>{u.name}</td>
              <td>{u.email}</td>
              <td>
                <select
                  aria-label={`Role of ${u.email}`}
                  value={u.role}
                  onChange={async (e) => {
                    setError(null);
                    try {
                      await setRole.mutateAsync({ userId: u.id, role: e.target.value as "admin" | "member" | "viewer" });
                    } catch (err) {
                      setError((err as Error).message);
                    }
                    qc.invalidateQueries({ queryKey: trpc.users.list.queryKey() });
                  }}
                >
                  <option>admin</option><option>member</option><option>viewer</option>
                </select>
              </td>
              <td>{formatTime(u.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** The installation's settings (admins): what report notes may show. */
function Installation() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const update = useMutation(trpc.settings.update.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  return (
    <section className="card" aria-label="Installation">
      <h2>Installation</h2>
      {error && <p role="alert" className="error">{error}</p>}
      <label>
        <span>
          <input
            type="checkbox"
            checked={settings.data?.reportImagesFromOtherHosts ?? false}
            disabled={!settings.data || update.isPending}
            onChange={async (e) => {
              setError(null);
              setSaved(false);
              try {
                await update.mutateAsync({ reportImagesFromOtherHosts: e.target.checked });
                setSaved(true);
              } catch (err) {
                setError((err as Error).message);
              }
              qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
            }}
          />{" "}
          Report notes may show images from other hosts
        </span>
      </label>
      <p className="muted small">
        Off: a note&apos;s image from another host is shown as its description, and pages load images from this server only (their
        Content-Security-Policy says so). An image from another host tells that host who read the report, and when. Applies to pages opened
        from now on.
      </p>
      {saved && <p role="status" className="notice small">Saved.</p>}
    </section>
  );
}

export default function SettingsPage() {
  const me = useMe();
  return (
    <RequireUser>
      <h1>Settings</h1>
      <Tokens />
      {me?.role === "admin" && <Installation />}
      {me?.role === "admin" && <Users />}
    </RequireUser>
  );
}
