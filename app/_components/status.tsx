/** A run's status; `detail` says what a running run is doing beside progressing (e.g. "waiting for node …"). */
export function StatusBadge({ status, detail }: { status: string; detail?: string | null }) {
  return (
    <>
      <span className={`status status-${status}`} data-testid="run-status">
        {status}
      </span>
      {detail && status === "running" ? (
        <span className="status-detail" role="status" data-testid="run-status-detail">
          {detail}
        </span>
      ) : null}
    </>
  );
}

/** What a run's progress counts: training steps, or — in an evaluation, one step long — episodes (rollouts). */
export function progressUnit(kind: string): "step" | "episode" {
  return kind === "eval" ? "episode" : "step";
}

export function ProgressBar({ step, total, unit = "step" }: { step: number; total: number; unit?: "step" | "episode" }) {
  const pct = total > 0 ? Math.min(100, Math.round((step / total) * 100)) : 0;
  return (
    <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={step} aria-label={`${unit} ${step} of ${total}`}>
      <div className="bar" style={{ width: `${pct}%` }} />
      <span className="label">
        {step}/{total}
      </span>
    </div>
  );
}
