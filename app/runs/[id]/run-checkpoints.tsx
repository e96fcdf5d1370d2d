"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";
import { formatNumber, formatTime } from "../../_lib/format";
import { StatusBadge } from "../../_components/status";

/**
 * A training run's checkpoints: where each is, its evaluations, and what can be done with it —
 * "Evaluate this checkpoint…" (the new-run form, prefilled) and, where its node exports LoRA adapters
 * (hosted Tinker, SkyRL tx), "Download adapter".
 */
export function RunCheckpoints({ runId, canLaunch }: { runId: string; canLaunch: boolean }) {
  const trpc = useTRPC();
  const checkpoints = useQuery(trpc.runs.checkpoints.queryOptions({ runId }));
  const evaluations = useQuery(trpc.runs.checkpointEvaluations.queryOptions({ runId }));
  if (checkpoints.error) return <p role="alert" className="error">{checkpoints.error.message}</p>;
  if (!checkpoints.data) return <p className="muted">Loading…</p>;
  if (checkpoints.data.length === 0) return <p className="muted">No checkpoints saved yet.</p>;
  const evaluated = (step: number) => (evaluations.data ?? []).filter((e) => e.step === step).length;
  return (
    <table className="table" data-testid="run-checkpoints">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Node</th>
          <th scope="col">State path</th>
          <th scope="col">Sampler path</th>
          <th scope="col">Saved</th>
          <th scope="col" className="num">Evaluations</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {checkpoints.data.map((c) => (
          <tr key={c.id} data-step={c.step}>
            <td>{c.step}</td>
            <td>{c.nodeName}</td>
            <td className="mono">{c.statePath}</td>
            <td className="mono">{c.samplerPath}</td>
            <td>{formatTime(c.createdAt)}</td>
            <td className="num">{evaluated(c.step)}</td>
            <td>
              {c.deletedAt ? (
                <span className="muted small" data-testid="checkpoint-deleted">
                  deleted {formatTime(c.deletedAt)}
                  {c.deletedReason ? `: ${c.deletedReason}` : ""}
                </span>
              ) : (
                <span className="actions">
                  {canLaunch && (
                    <Link className="button small" href={`/runs/new?evaluate=${runId}&step=${c.step}`}>
                      Evaluate this checkpoint…
                    </Link>
                  )}{" "}
                  {c.exportable && (
                    <a className="button small" href={`/api/checkpoints/${c.id}/adapter`} download>
                      Download adapter
                    </a>
                  )}
                </span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The evaluation runs of a training run's checkpoints (lineage: Run.evaluatedCheckpoint), newest first. */
export function CheckpointEvaluations({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const evaluations = useQuery(trpc.runs.checkpointEvaluations.queryOptions({ runId }));
  if (evaluations.error) return <p role="alert" className="error">{evaluations.error.message}</p>;
  if (!evaluations.data) return <p className="muted">Loading…</p>;
  if (evaluations.data.length === 0) return <p className="muted">No evaluations of this run&apos;s checkpoints yet.</p>;
  return (
    <table className="table" data-testid="run-evaluations">
      <thead>
        <tr>
          <th scope="col">Evaluation</th>
          <th scope="col">Checkpoint</th>
          <th scope="col">Benchmark</th>
          <th scope="col" className="num">Passes</th>
          <th scope="col">Status</th>
          <th scope="col" className="num">Reward (latest pass)</th>
          <th scope="col">Launched</th>
        </tr>
      </thead>
      <tbody>
        {evaluations.data.map((e) => (
          <tr key={e.id}>
            <td>
              <Link href={`/runs/${e.id}`}>{e.name}</Link>
            </td>
            <td>step {e.step ?? "—"}</td>
            <td className="mono">{e.dataset ?? "—"}</td>
            <td className="num">{e.repeats}</td>
            <td>
              <StatusBadge status={e.status} detail={e.statusDetail} />
            </td>
            <td className="num">{formatNumber((e.latestMetrics as Record<string, number>)["reward/mean"])}</td>
            <td>{formatTime(e.createdAt)}</td>
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
