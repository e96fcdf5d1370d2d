export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`status status-${status}`} data-testid="run-status">
      {status}
    </span>
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
