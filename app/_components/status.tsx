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

/** The latest step's errored episodes, from a run's denormalised latest metrics (evaluation first). */
export function erroredEpisodesOf(latestMetrics: unknown): { errored: number; total: number } | null {
  const m = (latestMetrics ?? {}) as Record<string, number>;
  for (const p of ["val/", ""]) {
    const errored = m[`${p}episodes/errored`];
    const total = m[`${p}episodes/total`];
    if (typeof errored === "number" && typeof total === "number" && errored > 0) return { errored, total };
  }
  return null;
}

/**
 * Under a run's status in lists: why a failed run failed (shortened; the whole text on hover), and how
 * many episodes of the latest step errored and were left out of its scores.
 */
export function RunTrouble({ status, error, latestMetrics }: { status: string; error: string | null; latestMetrics: unknown }) {
  const errored = erroredEpisodesOf(latestMetrics);
  return (
    <>
      {status === "failed" && error ? (
        <div className="small run-error" title={error} data-testid="run-error">
          {error.length > 160 ? `${error.slice(0, 160)}…` : error}
        </div>
      ) : null}
      {errored ? (
        <div className="small muted" data-testid="run-errored-episodes" title="Episodes that could not run (user simulator, judge, environment or node failure, prompt over the context) are left out of the scores">
          {errored.errored} of {errored.total} episodes errored (left out)
        </div>
      ) : null}
    </>
  );
}
