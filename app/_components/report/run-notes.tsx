/** The notes under a report's per-run table (BFCL, τ²): each run that has notes, by name, with its notes. */
export function RunNotes({ rows, testId }: { rows: readonly { runId: string; runName: string; notes: readonly string[] }[]; testId: string }) {
  const noted = rows.filter((r) => r.notes.length > 0);
  if (noted.length === 0) return null;
  return (
    <div className="small" data-testid={testId}>
      {noted.map((r) => (
        <div key={r.runId}>
          <strong>{r.runName}</strong>
          <ul>
            {r.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}
