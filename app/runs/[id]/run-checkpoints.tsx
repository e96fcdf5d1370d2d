"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";
import { formatTime } from "../../_lib/format";

export function RunCheckpoints({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const checkpoints = useQuery(trpc.runs.checkpoints.queryOptions({ runId }));
  if (checkpoints.error) return <p role="alert" className="error">{checkpoints.error.message}</p>;
  if (!checkpoints.data) return <p className="muted">Loading…</p>;
  if (checkpoints.data.length === 0) return <p className="muted">No checkpoints saved yet.</p>;
  return (
    <table className="table" data-testid="run-checkpoints">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Node</th>
          <th scope="col">State path</th>
          <th scope="col">Sampler path</th>
          <th scope="col">Saved</th>
        </tr>
      </thead>
      <tbody>
        {checkpoints.data.map((c) => (
          <tr key={c.id}>
            <td>{c.step}</td>
            <td>{c.nodeName}</td>
            <td className="mono">{c.statePath}</td>
            <td className="mono">{c.samplerPath}</td>
            <td>{formatTime(c.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RunNodes({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const nodes = useQuery(trpc.runs.nodes.queryOptions({ runId }));
  if (nodes.error) return <p role="alert" className="error">{nodes.error.message}</p>;
  if (!nodes.data) return <p className="muted">Loading…</p>;
  return (
    <ul className="node-health" data-testid="run-nodes">
      {nodes.data.map((n) => (
        <li key={n.name}>
          <span className={`status status-${n.node?.health ?? "missing"}`}>{n.node?.health ?? "not attached"}</span>{" "}
          <strong>{n.name}</strong> <span className="muted small">{n.roles.join(", ")}</span>
          {n.node && (
            <span className="muted small">
              {" "}
              · {n.node.kind} · last seen {formatTime(n.node.lastSeenAt)}
              {n.node.healthDetail ? ` · ${n.node.healthDetail}` : ""}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
