"use client";
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { formatDuration, formatNumber, formatTime } from "../../_lib/format";
import { ProgressBar, progressUnit, StatusBadge } from "../../_components/status";
import { useMe } from "../../_components/require-user";
import { mayChangeRun, RUN_CHANGE_RULE } from "../../../lib/permissions";
import { RunLogs } from "./run-logs";
import { RunCharts } from "./run-charts";
import { runChartKind } from "../../_components/charts/chart-math";
import { CheckpointEvaluations, RunCheckpoints, RunNodes } from "./run-checkpoints";
import { WorldModelView } from "./world-model";
import { BfclResults } from "./bfcl-results";
import { FinmcpResults } from "./finmcp-results";
import { ErroredEpisodes } from "./errored-episodes";
import { RunEvaluations } from "./run-evaluations";
import { RunPasses } from "./run-passes";
import { RunStorage } from "./run-storage";

export function RunView({ id }: { id: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useMe();
  const run = useQuery(trpc.runs.get.queryOptions({ id }));
  const [actionError, setActionError] = useState<string | null>(null);
  const cancel = useMutation(trpc.runs.cancel.mutationOptions());
  const resume = useMutation(trpc.runs.resume.mutationOptions());

  if (run.error) return <p role="alert" className="error">{run.error.message}</p>;
  if (!run.data) return <p className="muted">Loading…</p>;
  const r = run.data;
  const canLaunch = me && me.role !== "viewer";
  // Cancel and resume belong to the run's owner or an admin; other members see the buttons disabled, with the rule.
  const canChange = Boolean(me && mayChangeRun(r, me));
  const lifecycleAction = (r.status === "queued" || r.status === "running" || r.status === "failed" || r.status === "cancelled") && canLaunch;
  const latest = r.latestMetrics as Record<string, number>;
  const suites = suitesOf(r.config);
  const configured = (r.config as { repeats?: unknown }).repeats;
  const passes = r.kind === "eval" && typeof configured === "number" ? configured : 1;

  async function act(kind: "cancel" | "resume") {
    setActionError(null);
    try {
      await (kind === "cancel" ? cancel : resume).mutateAsync({ id });
      await qc.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ id }) });
    } catch (err) {
      setActionError((err as Error).message);
    }
  }

  return (
    <div>
      <div className="page-head">
        <h1>{r.name}</h1>
        <StatusBadge status={r.status} detail={r.statusDetail} />
        <div className="spacer" />
        {canLaunch && (r.status === "queued" || r.status === "running") && (
          <button onClick={() => act("cancel")} disabled={!canChange || cancel.isPending || r.cancelRequested} title={canChange ? undefined : RUN_CHANGE_RULE}>
            {r.cancelRequested ? "Cancelling…" : "Cancel run"}
          </button>
        )}
        {canLaunch && (r.status === "failed" || r.status === "cancelled") && (
          <button onClick={() => act("resume")} disabled={!canChange || resume.isPending} title={canChange ? undefined : RUN_CHANGE_RULE}>
            Resume run
          </button>
        )}
        {canLaunch && (
          <Link className="button" href={`/runs/new?from=${r.id}`}>
            Clone and edit
          </Link>
        )}
        {canLaunch && (
          <Link className="button" href={`/studies/new?from=${r.id}`}>
            Start a study
          </Link>
        )}
        {canLaunch && r.kind === "train" && r.progressStep > 0 && (
          <Link className="button" href={`/runs/new?evaluate=${r.id}&step=latest`} title="the run's latest checkpoint: its final policy once it finished">
            Evaluate the final policy…
          </Link>
        )}
        <Link className="button" href={`/runs/${r.id}/trajectories`}>Trajectories</Link>
      </div>
      {r.studyId && (
        <p className="small" data-testid="run-study">
          Part of a <Link href={`/studies/${r.studyId}`}>study</Link>.
        </p>
      )}
      {r.evaluatedCheckpoint && (
        <p className="lineage" data-testid="run-lineage">
          Evaluates the checkpoint of <Link href={`/runs/${r.evaluatedCheckpoint.runId}`}>{r.evaluatedCheckpoint.run.name}</Link> at step {r.evaluatedCheckpoint.step}
          {passes > 1 ? `, in ${passes} independent passes` : ""}.
        </p>
      )}
      {lifecycleAction && !canChange && (
        <p className="muted small" data-testid="run-permission-note">
          Launched by {r.createdBy.name || r.createdBy.email}: {RUN_CHANGE_RULE}.
        </p>
      )}
      {actionError && <p role="alert" className="error">{actionError}</p>}
      <div className="cards">
        <div className="card stat">
          <div className="muted">Progress</div>
          <ProgressBar step={r.progressStep} total={r.totalSteps} unit={progressUnit(r.kind)} />
          <div className="small" data-testid="run-progress">
            {progressUnit(r.kind)} {r.progressStep} of {r.totalSteps} · ETA <span data-testid="run-eta">{r.status === "running" ? formatDuration(r.etaSeconds) : "—"}</span>
          </div>
        </div>
        <div className="card stat">
          <div className="muted">Kind / paradigm</div>
          <div>
            {r.kind} · {r.paradigm} · node <strong>{r.policyNode}</strong>
          </div>
          <div className="small">attempt {r.attempts} · started {formatTime(r.startedAt)} · finished {formatTime(r.finishedAt)}</div>
        </div>
        <div className="card stat">
          <div className="muted">Latest metrics</div>
          {Object.keys(latest).length === 0 ? (
            <div className="muted">none yet</div>
          ) : (
            <dl className="kv">
              {Object.entries(latest)
                .slice(0, 8)
                .map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>{formatNumber(v)}</dd>
                  </div>
                ))}
            </dl>
          )}
        </div>
      </div>
      {r.error && (
        <div className="card error-card" role="alert">
          <strong>Error:</strong> {r.error}
        </div>
      )}
      {(r.status === "succeeded" || r.status === "failed" || r.status === "cancelled") && <RunStorage run={r} canChange={canChange} />}
      <ErroredEpisodes runId={r.id} />
      {passes > 1 && <RunPasses runId={r.id} passes={passes} />}
      <BfclResults runId={r.id} />
      <FinmcpResults runId={r.id} />
      <RunEvaluations runId={r.id} />
      <section aria-labelledby="run-charts-heading">
        <h2 id="run-charts-heading">Charts</h2>
        <RunCharts runId={r.id} runName={r.name} kind={runChartKind(r)} suites={suites} />
      </section>
      <section aria-labelledby="run-world-model-heading">
        <h2 id="run-world-model-heading">World model</h2>
        <WorldModelView runId={r.id} />
      </section>
      <section aria-labelledby="run-nodes-heading">
        <h2 id="run-nodes-heading">Node health</h2>
        <RunNodes runId={r.id} />
      </section>
      <section aria-labelledby="run-checkpoints-heading">
        <h2 id="run-checkpoints-heading">Checkpoints</h2>
        <RunCheckpoints runId={r.id} canLaunch={Boolean(canLaunch)} />
      </section>
      {r.kind === "train" && (
        <section aria-labelledby="run-evaluations-heading">
          <h2 id="run-evaluations-heading">Evaluations of its checkpoints</h2>
          <CheckpointEvaluations runId={r.id} />
        </section>
      )}
      <section>
        <h2>Logs</h2>
        <RunLogs runId={r.id} />
      </section>
      <section>
        <h2>Config</h2>
        <pre className="code" data-testid="run-config">{JSON.stringify(r.config, null, 2)}</pre>
      </section>
    </div>
  );
}

/** The evaluation suites a stored config names (schedule.evalSuites), for their chart panels. */
function suitesOf(config: unknown): { name: string; dataset?: string }[] {
  const list = (config as { schedule?: { evalSuites?: unknown } } | null)?.schedule?.evalSuites;
  if (!Array.isArray(list)) return [];
  return list.flatMap((s) => (s && typeof s === "object" && typeof (s as { name?: unknown }).name === "string" ? [{ name: (s as { name: string }).name, dataset: String((s as { dataset?: unknown }).dataset ?? "") }] : []));
}
