"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { TRPCClientError } from "@trpc/client";
import { useTRPC } from "../_lib/trpc";
import { formatTime } from "../_lib/format";
import { RequireUser, useMe } from "../_components/require-user";
import { NODE_REMOVE_RULE, NODE_TEST_RULE } from "../../lib/permissions";

function AddNode({ onDone }: { onDone: () => void }) {
  const trpc = useTRPC();
  const add = useMutation(trpc.nodes.add.mutationOptions());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  return (
    <form
      className="card form-inline"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        setErrors({});
        setFormError(null);
        try {
          await add.mutateAsync({
            name: String(f.get("name")),
            kind: String(f.get("kind")) as "openai" | "tinker" | "embedded",
            baseUrl: String(f.get("baseUrl")),
            apiKey: String(f.get("apiKey") ?? "") || undefined,
          });
          (e.target as HTMLFormElement).reset();
          onDone();
        } catch (err) {
          if (err instanceof TRPCClientError) {
            const fe = (err.data as { fieldErrors?: { path: string; message: string }[] })?.fieldErrors ?? [];
            setErrors(Object.fromEntries(fe.map((x) => [x.path, x.message])));
            if (!fe.length) setFormError(err.message);
          }
        }
      }}
    >
      <h2>Add a node</h2>
      <label>Name <input name="name" required aria-invalid={Boolean(errors.name)} />{errors.name && <span className="error" role="alert">{errors.name}</span>}</label>
      <label>Kind
        <select name="kind" defaultValue="openai">
          <option value="openai">OpenAI-compatible (vLLM, SGLang, OpenAI)</option>
          <option value="tinker">Tinker-compatible (Tinker, SkyRL tx)</option>
          <option value="embedded">Embedded (both protocols)</option>
        </select>
      </label>
      <label>Base URL <input name="baseUrl" required placeholder="http://gpu-node:8000" aria-invalid={Boolean(errors.baseUrl)} />{errors.baseUrl && <span className="error" role="alert">{errors.baseUrl}</span>}</label>
      <label>API key (write-only) <input name="apiKey" type="password" autoComplete="off" /></label>
      {formError && <p className="error" role="alert">{formError}</p>}
      <button type="submit" className="primary">Add node</button>
    </form>
  );
}

export default function NodesPage() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useMe();
  const nodes = useQuery(trpc.nodes.list.queryOptions());
  const test = useMutation(trpc.nodes.test.mutationOptions());
  const remove = useMutation(trpc.nodes.remove.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const refresh = useCallback(() => qc.invalidateQueries({ queryKey: trpc.nodes.list.queryKey() }), [qc, trpc]);
  const canChange = me && me.role !== "viewer";
  return (
    <RequireUser>
      <h1>Nodes</h1>
      {error && <p role="alert" className="error">{error}</p>}
      <table className="table" data-testid="nodes-table">
        <thead><tr><th>Name</th><th>Kind</th><th>URL</th><th>Models</th><th>Capabilities</th><th>Health</th><th>Last seen</th><th>Key</th><th>Added by</th><th /></tr></thead>
        <tbody>
          {nodes.data?.map((n) => {
            const caps = n.capabilities as { chat?: boolean; training?: boolean };
            return (
              <tr key={n.id}>
                <td>{n.name}</td>
                <td>{n.kind}</td>
                <td><code>{n.baseUrl}</code></td>
                <td>{n.models.join(", ") || "—"}</td>
                <td>{[caps.chat && "chat", caps.training && "training"].filter(Boolean).join(", ") || "—"}</td>
                <td><span className={`status status-${n.health}`}>{n.health}</span><div className="small muted">{n.healthDetail}</div></td>
                <td>{formatTime(n.lastSeenAt)}</td>
                <td>{n.hasApiKey ? "set" : "—"}</td>
                <td>{n.addedBy ? n.addedBy.name || n.addedBy.email : <span className="muted">system</span>}</td>
                <td>
                  {canChange && (
                    <>
                      <button disabled={!n.canTest} title={n.canTest ? undefined : NODE_TEST_RULE} onClick={async () => { setError(null); try { await test.mutateAsync({ id: n.id }); } catch (e) { setError((e as Error).message); } refresh(); }}>Test</button>{" "}
                      <button disabled={!n.canRemove} title={n.canRemove ? undefined : NODE_REMOVE_RULE} onClick={async () => { setError(null); try { await remove.mutateAsync({ id: n.id }); } catch (e) { setError((e as Error).message); } refresh(); }}>Remove</button>
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {canChange && me.role !== "admin" && (
        <p className="muted small" data-testid="node-permission-note">
          Who may do what: {NODE_REMOVE_RULE}; {NODE_TEST_RULE}.
        </p>
      )}
      {canChange && <AddNode onDone={refresh} />}
    </RequireUser>
  );
}
