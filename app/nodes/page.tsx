"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useCallback, useState } from "react";
import { TRPCClientError } from "@trpc/client";
import { useTRPC } from "../_lib/trpc";
import { formatTime } from "../_lib/format";
import { RequireUser, useMe } from "../_components/require-user";
import { NODE_ADD_RULE, NODE_EDIT_RULE, NODE_REMOVE_RULE, NODE_TEST_RULE } from "../../lib/permissions";
import { DoctorReports, DoctorSummary } from "./doctor-report";
import { draftOf, fieldKeyOf, NodeSettingsEditor, settingsFromDraft, type SettingsDraft, type SettingsErrors } from "./node-settings-editor";

type Kind = "openai" | "tinker" | "embedded" | "search";

/** Server field errors → the form's keys: top-level fields as they are, settings.* by the settings editor's keys. */
function serverErrors(err: unknown): { fields: SettingsErrors; form: string | null } {
  if (!(err instanceof TRPCClientError)) return { fields: {}, form: String(err) };
  const fe = (err.data as { fieldErrors?: { path: string; message: string }[] } | undefined)?.fieldErrors ?? [];
  const fields: SettingsErrors = {};
  for (const f of fe) {
    const key = f.path.startsWith("settings.") ? `settings:${fieldKeyOf(f.path.slice("settings.".length).split("."))}` : f.path;
    fields[key] ??= f.message;
  }
  return { fields, form: fe.length ? null : err.message };
}

/** Keys of settings errors for the editor (prefix removed). */
const settingsPart = (errors: SettingsErrors) => Object.fromEntries(Object.entries(errors).filter(([k]) => k.startsWith("settings:")).map(([k, v]) => [k.slice("settings:".length), v]));
/** The editor's own errors as the form's keys (prefixed), the inverse of `settingsPart`. */
const asFormErrors = (errors: SettingsErrors) => Object.fromEntries(Object.entries(errors).map(([k, v]) => [`settings:${k}`, v]));

/** Who may do what with nodes, for every reader (lib/permissions.ts enforces it). */
function NodePermissions({ role }: { role: string | undefined }) {
  return (
    <section className="card small" data-testid="node-permissions" aria-label="Who may do what">
      <h2>Who may do what</h2>
      <ul>
        <li>
          <strong>Admins</strong> add, change and remove nodes: the server (node doctor) and the worker (runs) make requests to a node&apos;s URL with its API key, so
          pointing them at a URL is an admin&apos;s decision.
        </li>
        <li>
          <strong>Members</strong> use the nodes in their runs and run the doctor on nodes an admin added.
        </li>
        <li>
          <strong>Viewers</strong> read the nodes and their reports.
        </li>
      </ul>
      {role && <p className="muted">You are {role === "admin" ? "an admin" : `a ${role}`}.{role !== "admin" ? " Ask an admin to add or change a node." : ""}</p>}
    </section>
  );
}

function AddNode({ onDone }: { onDone: () => void }) {
  const trpc = useTRPC();
  const add = useMutation(trpc.nodes.add.mutationOptions());
  const [errors, setErrors] = useState<SettingsErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [kind, setKind] = useState<Kind>("openai");
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf({}));
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="card form"
      aria-label="Add a node"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = new FormData(form);
        setErrors({});
        setFormError(null);
        const settings = settingsFromDraft(draft);
        if (!settings.ok) {
          setErrors(asFormErrors(settings.errors));
          return;
        }
        setBusy(true);
        try {
          await add.mutateAsync({
            name: String(f.get("name")),
            kind,
            baseUrl: String(f.get("baseUrl")),
            apiKey: String(f.get("apiKey") ?? "") || undefined,
            settings: settings.value,
          });
          form.reset();
          setDraft(draftOf({}));
          onDone();
        } catch (err) {
          const { fields, form: message } = serverErrors(err);
          setErrors(fields);
          setFormError(message);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>Add a node</h2>
      <div className="form-inline">
        <label>
          Name <input name="name" required aria-invalid={Boolean(errors.name)} />
          {errors.name && (
            <span className="error" role="alert">
              {errors.name}
            </span>
          )}
        </label>
        <label>
          Kind
          <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="openai">OpenAI-compatible (vLLM, SGLang, OpenAI)</option>
            <option value="tinker">Tinker-compatible (Tinker, SkyRL tx)</option>
            <option value="embedded">Embedded (both protocols)</option>
            <option value="search">Search API (SerpAPI-compatible; BFCL web search)</option>
          </select>
        </label>
        <label>
          Base URL <input name="baseUrl" required placeholder="http://gpu-node:8000" aria-invalid={Boolean(errors.baseUrl)} />
          {errors.baseUrl && (
            <span className="error" role="alert">
              {errors.baseUrl}
            </span>
          )}
        </label>
        <label>
          API key (write-only) <input name="apiKey" type="password" autoComplete="off" />
        </label>
      </div>
      {kind !== "search" && (
        <details>
          <summary>Settings (models and their renderers, {kind === "openai" ? "OpenAI" : kind === "tinker" ? "Tinker" : "Tinker and OpenAI"} client)</summary>
          <NodeSettingsEditor kind={kind as Exclude<Kind, "search">} draft={draft} errors={settingsPart(errors)} onChange={setDraft} />
        </details>
      )}
      {formError && (
        <p className="error" role="alert">
          {formError}
        </p>
      )}
      <div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Adding and checking…" : "Add node"}
        </button>{" "}
        <span className="muted small">Adding runs the node doctor. The URL is stored as http(s)://host[:port][/path], without a query, fragment or credentials.</span>
      </div>
    </form>
  );
}

interface EditableNode {
  id: string;
  name: string;
  kind: string;
  baseUrl: string;
  hasApiKey: boolean;
  settings: unknown;
}

function EditNode({ node, onDone, onCancel }: { node: EditableNode; onDone: () => void; onCancel: () => void }) {
  const trpc = useTRPC();
  const update = useMutation(trpc.nodes.update.mutationOptions());
  const [baseUrl, setBaseUrl] = useState(node.baseUrl);
  const [apiKey, setApiKey] = useState("");
  const [removeKey, setRemoveKey] = useState(false);
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf(node.settings));
  const [errors, setErrors] = useState<SettingsErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="card form"
      aria-label={`Edit node ${node.name}`}
      data-testid="edit-node"
      onSubmit={async (e) => {
        e.preventDefault();
        setErrors({});
        setFormError(null);
        const settings = settingsFromDraft(draft);
        if (!settings.ok) {
          setErrors(asFormErrors(settings.errors));
          return;
        }
        setBusy(true);
        try {
          await update.mutateAsync({
            id: node.id,
            ...(baseUrl !== node.baseUrl ? { baseUrl } : {}),
            ...(removeKey ? { apiKey: null } : apiKey ? { apiKey } : {}),
            settings: settings.value,
          });
          onDone();
        } catch (err) {
          const { fields, form } = serverErrors(err);
          setErrors(fields);
          setFormError(form);
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>
        Edit <code>{node.name}</code> <span className="muted small">({node.kind})</span>
      </h2>
      <div className="form-inline">
        <label>
          Base URL
          <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} aria-invalid={Boolean(errors.baseUrl)} />
          {errors.baseUrl && (
            <span className="error" role="alert">
              {errors.baseUrl}
            </span>
          )}
        </label>
        <label>
          New API key {node.hasApiKey ? "(one is set; empty keeps it)" : "(none set)"}
          <input type="password" autoComplete="off" value={apiKey} disabled={removeKey} onChange={(e) => setApiKey(e.target.value)} />
        </label>
        {node.hasApiKey && (
          <label>
            <span>
              <input type="checkbox" checked={removeKey} onChange={(e) => setRemoveKey(e.target.checked)} /> remove the key
            </span>
          </label>
        )}
      </div>
      {node.kind !== "search" && <NodeSettingsEditor kind={node.kind as Exclude<Kind, "search">} draft={draft} errors={settingsPart(errors)} onChange={setDraft} />}
      {formError && (
        <p className="error" role="alert">
          {formError}
        </p>
      )}
      <div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Saving and checking…" : "Save and run the doctor"}
        </button>{" "}
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export default function NodesPage() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useMe();
  const nodes = useQuery(trpc.nodes.list.queryOptions());
  const doctor = useMutation(trpc.nodes.doctor.mutationOptions());
  const remove = useMutation(trpc.nodes.remove.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [checking, setChecking] = useState<string | null>(null);
  const refresh = useCallback(() => qc.invalidateQueries({ queryKey: trpc.nodes.list.queryKey() }), [qc, trpc]);
  // Members run the doctor (where they may probe the URL); admins also add, change and remove.
  const canUse = me && me.role !== "viewer";
  const isAdmin = me?.role === "admin";
  return (
    <RequireUser>
      <h1>Nodes</h1>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <table className="table" data-testid="nodes-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>URL</th>
            <th>Models</th>
            <th>Capabilities</th>
            <th>Health</th>
            <th title="OpenAI-protocol requests in flight from every worker / the node's maxConcurrency">In flight</th>
            <th>Doctor</th>
            <th>Last seen</th>
            <th>Key</th>
            <th>Added by</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {nodes.data?.map((n) => {
            const caps = n.capabilities as { chat?: boolean; training?: boolean };
            return (
              <Fragment key={n.id}>
                <tr data-node={n.name}>
                  <td>{n.name}</td>
                  <td>{n.kind}</td>
                  <td>
                    <code>{n.baseUrl}</code>
                  </td>
                  <td>{n.models.join(", ") || "—"}</td>
                  <td>{[caps.chat && "chat", caps.training && "training"].filter(Boolean).join(", ") || "—"}</td>
                  <td>
                    <span className={`status status-${n.health}`}>{n.health}</span>
                    <div className="small muted">{n.healthDetail}</div>
                  </td>
                  <td data-testid={`in-flight-${n.name}`}>
                    {n.inFlight} / {n.concurrencyLimit}
                  </td>
                  <td>
                    <DoctorSummary reports={n.doctor} />{" "}
                    <button type="button" className="tag" aria-expanded={open === n.id} onClick={() => setOpen(open === n.id ? null : n.id)}>
                      {open === n.id ? "hide report" : "report"}
                    </button>
                  </td>
                  <td>{formatTime(n.lastSeenAt)}</td>
                  <td>{n.hasApiKey ? "set" : "—"}</td>
                  <td>{n.addedBy ? n.addedBy.name || n.addedBy.email : <span className="muted">system</span>}</td>
                  <td>
                    {canUse && (
                      <>
                        <button
                          disabled={!n.canTest || checking === n.id}
                          title={n.canTest ? undefined : NODE_TEST_RULE}
                          onClick={async () => {
                            setError(null);
                            setChecking(n.id);
                            try {
                              await doctor.mutateAsync({ id: n.id });
                              setOpen(n.id);
                            } catch (e) {
                              setError((e as Error).message);
                            } finally {
                              setChecking(null);
                            }
                            refresh();
                          }}
                        >
                          {checking === n.id ? "Checking…" : "Run doctor"}
                        </button>{" "}
                        <button disabled={!n.canEdit} title={n.canEdit ? undefined : NODE_EDIT_RULE} onClick={() => setEditing(editing === n.id ? null : n.id)}>
                          Edit
                        </button>{" "}
                        <button
                          disabled={!n.canRemove}
                          title={n.canRemove ? undefined : NODE_REMOVE_RULE}
                          onClick={async () => {
                            setError(null);
                            try {
                              await remove.mutateAsync({ id: n.id });
                            } catch (e) {
                              setError((e as Error).message);
                            }
                            refresh();
                          }}
                        >
                          Remove
                        </button>
                      </>
                    )}
                  </td>
                </tr>
                {editing === n.id && (
                  <tr>
                    <td colSpan={12}>
                      <EditNode
                        node={n}
                        onCancel={() => setEditing(null)}
                        onDone={() => {
                          setEditing(null);
                          setOpen(n.id);
                          refresh();
                        }}
                      />
                    </td>
                  </tr>
                )}
                {open === n.id && (
                  <tr>
                    <td colSpan={12}>
                      <DoctorReports reports={n.doctor} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {isAdmin ? (
        <AddNode onDone={() => refresh()} />
      ) : (
        me && (
          <p className="muted small" data-testid="node-add-rule">
            {NODE_ADD_RULE[0]!.toUpperCase() + NODE_ADD_RULE.slice(1)}.
          </p>
        )
      )}
      <NodePermissions role={me?.role} />
    </RequireUser>
  );
}
