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

export function ProgressBar({ step, total }: { step: number; total: number }) {
  const pct = total > 0 ? Math.min(100, Math.round((step / total) * 100)) : 0;
  return (
    <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={step} aria-label={`step ${step} of ${total}`}>
      <div className="bar" style={{ width: `${pct}%` }} />
      <span className="label">
        {step}/{total}
      </span>
    </div>
  );
}
