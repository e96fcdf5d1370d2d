"use client";
/**
 * MCP servers as environments: the registered servers with the tools they list (names, descriptions,
 * JSON schemas), a Test action, and — for admins — the registration form. Runs use a server as
 * `mcp:<server>/<dataset>` (the tasks of an imported dataset against that server).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useCallback, useState } from "react";
import { RequireUser, useMe } from "../_components/require-user";
import { formatTime } from "../_lib/format";
import { useTRPC } from "../_lib/trpc";

type FieldErrors = Record<string, string>;

function fieldErrorsOf(err: unknown): { fields: FieldErrors; message: string } {
  if (err instanceof TRPCClientError) {
    const fe = (err.data as { fieldErrors?: { path: string; message: string }[] } | undefined)?.fieldErrors ?? [];
    return { fields: Object.fromEntries(fe.map((x) => [x.path, x.message])), message: fe.length ? fe.map((x) => `${x.path}: ${x.message}`).join("; ") : err.message };
  }
  return { fields: {}, message: (err as Error).message };
}

/** "NAME=value" lines → entries (blank lines skipped); a line without "=" is kept whole as a name, so the API names it. */
function pairs(text: string, sep: "=" | ":"): { name: string; value: string }[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const i = l.indexOf(sep);
      return i < 0 ? { name: l, value: "" } : { name: l.slice(0, i).trim(), value: l.slice(i + 1).trim() };
    });
}

const numberOr = (v: FormDataEntryValue | null) => (String(v ?? "").trim() === "" ? undefined : Number(v));

function RegisterServer({ onDone }: { onDone: (message: string) => void }) {
  const trpc = useTRPC();
  const register = useMutation(trpc.mcpServers.register.mutationOptions());
  const [transport, setTransport] = useState<"stdio" | "http">("stdio");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const err = (path: string) => errors[path] && <span className="error" role="alert">{errors[path]}</span>;

  return (
    <form
      className="card form"
      aria-label="Register an MCP server"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = new FormData(form);
        setErrors({});
        setFormError(null);
        const limits = {
          startTimeoutS: numberOr(f.get("startTimeoutS")),
          callTimeoutS: numberOr(f.get("callTimeoutS")),
          maxResultBytes: numberOr(f.get("maxResultKb")) === undefined ? undefined : Math.round(Number(f.get("maxResultKb")) * 1024),
          maxSessions: numberOr(f.get("maxSessions")),
        };
        const launch =
          transport === "stdio"
            ? {
                transport: "stdio" as const,
                command: String(f.get("command") ?? ""),
                args: String(f.get("args") ?? "")
                  .split("\n")
                  .map((a) => a.trim())
                  .filter(Boolean),
                cwd: String(f.get("cwd") ?? "").trim() || undefined,
                env: [
                  ...pairs(String(f.get("env") ?? ""), "=").map((p) => ({ ...p, secret: false })),
                  ...pairs(String(f.get("secretEnv") ?? ""), "=").map((p) => ({ ...p, secret: true })),
                ],
              }
            : { transport: "http" as const, url: String(f.get("url") ?? ""), headers: pairs(String(f.get("headers") ?? ""), ":") };
        try {
          const res = await register.mutateAsync({
            name: String(f.get("name") ?? ""),
            description: String(f.get("description") ?? ""),
            launch,
            settings: {
              limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
              tools: String(f.get("tools") ?? "")
                .split(",")
                .map((t) => t.trim())
                .filter(Boolean),
            },
          });
          form.reset();
          onDone(res.ok ? `Registered ${res.server.name}: ${res.tools} tool(s) listed (${res.ms} ms).` : `Registered ${res.server.name}, but its test failed: ${res.error}`);
        } catch (error) {
          const { fields, message } = fieldErrorsOf(error);
          setErrors(fields);
          setFormError(message);
        }
      }}
    >
      <h2>Register an MCP server</h2>
      <p className="muted small">
        Admins only. A stdio server runs as a fresh process for every episode, without a shell, with the environment you give it plus PATH, and HOME and
        TMPDIR set to the episode&apos;s own scratch directory — nothing else of the worker&apos;s (no database URL, no secrets). <code>{"${EPISODE_DIR}"}</code> in
        arguments, working directory and values stands for that directory (e.g. <code>{"MEMORY_FILE_PATH=${EPISODE_DIR}/memory.jsonl"}</code>). A streamable-HTTP
        server gets a fresh session per episode. Secret values and header values are stored encrypted and never shown again.
      </p>
      <div className="row">
        <label className="field">
          Name <input name="name" required placeholder="memory" pattern="[a-z0-9][a-z0-9_\-]{0,62}" title="lowercase letters, digits, - and _" aria-invalid={Boolean(errors.name)} />
          {err("name")}
        </label>
        <label className="field" style={{ flex: 1 }}>
          Description <input name="description" placeholder="what its tools do" />
        </label>
      </div>
      <fieldset className="row">
        <legend>Transport</legend>
        <label className="inline-check">
          <input type="radio" name="transport" value="stdio" checked={transport === "stdio"} onChange={() => setTransport("stdio")} /> stdio command
        </label>
        <label className="inline-check">
          <input type="radio" name="transport" value="http" checked={transport === "http"} onChange={() => setTransport("http")} /> streamable HTTP
        </label>
      </fieldset>
      {transport === "stdio" ? (
        <>
          <label className="field">
            Command <input name="command" required placeholder="/usr/bin/node" aria-invalid={Boolean(errors["launch.command"])} />
            {err("launch.command")}
          </label>
          <label className="field">
            Arguments (one per line) <textarea name="args" rows={3} placeholder={"/opt/mcp/server-filesystem/dist/index.js\n${EPISODE_DIR}"} />
            {err("launch.args")}
          </label>
          <label className="field">
            Working directory (empty: the episode&apos;s scratch directory) <input name="cwd" placeholder="/opt/mcp" aria-invalid={Boolean(errors["launch.cwd"])} />
            {err("launch.cwd")}
          </label>
          <label className="field">
            Environment (NAME=value per line) <textarea name="env" rows={2} placeholder={"MEMORY_FILE_PATH=${EPISODE_DIR}/memory.jsonl"} />
          </label>
          <label className="field">
            Secret environment (NAME=value per line; stored encrypted) <textarea name="secretEnv" rows={2} autoComplete="off" />
          </label>
          {Object.entries(errors)
            .filter(([k]) => k.startsWith("launch.env"))
            .map(([k, m]) => (
              <span key={k} className="error" role="alert">
                {k}: {m}
              </span>
            ))}
        </>
      ) : (
        <>
          <label className="field">
            URL <input name="url" required placeholder="http://tools.internal:8080/mcp" aria-invalid={Boolean(errors["launch.url"])} />
            {err("launch.url")}
          </label>
          <label className="field">
            Headers (Name: value per line; stored encrypted) <textarea name="headers" rows={2} placeholder="Authorization: Bearer …" autoComplete="off" />
          </label>
        </>
      )}
      <label className="field">
        Tools to offer (comma separated; empty: every tool the server lists) <input name="tools" placeholder="read_graph, search_nodes" />
      </label>
      <div className="row">
        <label className="field">
          Start timeout (s) <input name="startTimeoutS" type="number" min={1} max={600} placeholder="30" />
          {err("settings.limits.startTimeoutS")}
        </label>
        <label className="field">
          Call timeout (s) <input name="callTimeoutS" type="number" min={1} max={3600} placeholder="60" />
          {err("settings.limits.callTimeoutS")}
        </label>
        <label className="field">
          Largest result (KB) <input name="maxResultKb" type="number" min={1} placeholder="1024" />
          {err("settings.limits.maxResultBytes")}
        </label>
        <label className="field">
          Episodes at once per worker <input name="maxSessions" type="number" min={1} max={256} placeholder="8" />
          {err("settings.limits.maxSessions")}
        </label>
      </div>
      {formError && (
        <p className="error" role="alert" data-testid="register-error">
          {formError}
        </p>
      )}
      <button type="submit" className="primary" disabled={register.isPending}>
        {register.isPending ? "Registering and testing…" : "Register and test"}
      </button>
    </form>
  );
}

function ToolTable({ tools, offered }: { tools: { name: string; title?: string; description?: string; inputSchema: Record<string, unknown> }[]; offered: string[] }) {
  if (tools.length === 0) return <p className="muted">No tools listed yet: test the server.</p>;
  return (
    <table className="table" data-testid="mcp-tools">
      <thead>
        <tr>
          <th>Tool</th>
          <th>Description</th>
          <th>Input schema</th>
        </tr>
      </thead>
      <tbody>
        {tools.map((t) => (
          <tr key={t.name} className={offered.length && !offered.includes(t.name) ? "muted" : ""}>
            <td className="mono">
              {t.name}
              {offered.length > 0 && !offered.includes(t.name) && <div className="small">(not offered)</div>}
            </td>
            <td>{t.description ?? t.title ?? ""}</td>
            <td>
              <details>
                <summary className="small">JSON schema</summary>
                <pre className="code">{JSON.stringify(t.inputSchema, null, 2)}</pre>
              </details>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function McpServersPage() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useMe();
  const servers = useQuery(trpc.mcpServers.list.queryOptions());
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const test = useMutation(trpc.mcpServers.test.mutationOptions());
  const remove = useMutation(trpc.mcpServers.remove.mutationOptions());
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const refresh = useCallback(() => qc.invalidateQueries({ queryKey: trpc.mcpServers.list.queryKey() }), [qc, trpc]);
  const isAdmin = me?.role === "admin";
  const exampleDataset = datasets.data?.[0]?.name ?? "<dataset>";

  return (
    <RequireUser>
      <h1>MCP servers</h1>
      <p className="muted">
        Any MCP server as an environment: a run names one as <code>mcp:&lt;server&gt;/&lt;dataset&gt;</code> — the tasks of an imported dataset (CM2 rows, or a JSONL of instructions
        plus checklist items) against the server&apos;s tools. In the environment paradigm calls go to the server; with rehearsal and shadow execution its real answers are recorded beside
        the rehearsed ones, with their fidelity.
      </p>
      {message && (
        <p className={message.bad ? "error" : "notice"} role={message.bad ? "alert" : "status"} data-testid="mcp-message">
          {message.text}
        </p>
      )}
      {servers.data?.length === 0 && <p className="muted">No MCP server is registered yet{isAdmin ? "" : " (an admin registers them)"}.</p>}
      {servers.data?.map((s) => (
        <section key={s.id} className="card" data-testid={`mcp-server-${s.name}`}>
          <div className="page-head">
            <h2 style={{ margin: 0 }}>{s.name}</h2>
            <span className={`status status-${s.health}`}>{s.health}</span>
            {s.serverInfo && (
              <span className="muted small">
                {s.serverInfo.name} {s.serverInfo.version}
              </span>
            )}
            <span className="spacer" />
            {isAdmin && (
              <>
                <button
                  disabled={test.isPending}
                  onClick={async () => {
                    setMessage(null);
                    try {
                      const r = await test.mutateAsync({ id: s.id });
                      setMessage(r.ok ? { text: `${s.name}: ${r.tools} tool(s) listed in ${r.ms} ms.`, bad: false } : { text: `${s.name}: ${r.error}`, bad: true });
                    } catch (e) {
                      setMessage({ text: fieldErrorsOf(e).message, bad: true });
                    }
                    refresh();
                  }}
                >
                  Test
                </button>
                <button
                  onClick={async () => {
                    setMessage(null);
                    try {
                      await remove.mutateAsync({ id: s.id });
                    } catch (e) {
                      setMessage({ text: fieldErrorsOf(e).message, bad: true });
                    }
                    refresh();
                  }}
                >
                  Remove
                </button>
              </>
            )}
          </div>
          {s.description && <p>{s.description}</p>}
          <p className="small">
            {s.launch.transport === "stdio" ? (
              <>
                <code>{[s.launch.command, ...s.launch.args].join(" ")}</code>
                {s.launch.cwd && (
                  <>
                    {" "}
                    in <code>{s.launch.cwd}</code>
                  </>
                )}
                {s.launch.env.length > 0 && (
                  <>
                    {" "}
                    · environment:{" "}
                    {s.launch.env.map((e) => (
                      <code key={e.name} title={e.secret ? "secret: stored encrypted" : undefined}>
                        {e.name}={e.secret ? "••••" : e.value}{" "}
                      </code>
                    ))}
                  </>
                )}
              </>
            ) : (
              <>
                <code>{s.launch.url}</code>
                {s.launch.headers.length > 0 && <> · headers: {s.launch.headers.map((h) => h.name).join(", ")} (values hidden)</>}
              </>
            )}
          </p>
          <p className="small muted">
            Limits: start {s.settings?.limits.startTimeoutS ?? "?"} s, call {s.settings?.limits.callTimeoutS ?? "?"} s, result ≤ {s.settings ? Math.round(s.settings.limits.maxResultBytes / 1024) : "?"} KB,{" "}
            {s.settings?.limits.maxSessions ?? "?"} episode(s) at once per worker. Checked {formatTime(s.checkedAt)}.
            {s.healthDetail && <span className="error"> {s.healthDetail}</span>}
          </p>
          <p className="small">
            Use in a run as <code data-testid="mcp-ref">mcp:{s.name}/{exampleDataset}</code>
            {datasets.data && datasets.data.length > 1 && <span className="muted"> (any imported dataset: {datasets.data.map((d) => d.name).join(", ")})</span>}
          </p>
          <ToolTable tools={s.tools} offered={s.settings?.tools ?? []} />
        </section>
      ))}
      {isAdmin && (
        <RegisterServer
          onDone={(text) => {
            setMessage({ text, bad: text.includes("failed") });
            refresh();
          }}
        />
      )}
    </RequireUser>
  );
}
