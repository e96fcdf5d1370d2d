"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { formatTime } from "../../_lib/format";
import { RUN_CHANGE_RULE } from "../../../lib/permissions";

/**
 * A finished run's turns: in the database or archived (gzip JSON Lines in the archive store), with
 * Archive / Restore and the run's retention (the worker archives the turns N days after the run finished).
 */
export function RunStorage({ run, canChange }: { run: { id: string; archivedAt: Date | string | null; archiveUri: string | null; retainTurnsDays: number | null }; canChange: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const archive = useMutation(trpc.runs.archive.mutationOptions());
  const restore = useMutation(trpc.runs.restore.mutationOptions());
  const retention = useMutation(trpc.runs.retention.mutationOptions());
  const [days, setDays] = useState(run.retainTurnsDays === null ? "" : String(run.retainTurnsDays));
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const busy = archive.isPending || restore.isPending || retention.isPending;

  async function go(action: () => Promise<string>) {
    setError(null);
    setMessage(null);
    try {
      setMessage(await action());
      await qc.invalidateQueries({ queryKey: trpc.runs.get.queryKey({ id: run.id }) });
    } catch (err) {
      setError((err as Error).message);
    }
  }

  const saveRetention = () =>
    go(async () => {
      const value = days.trim() === "" ? null : Number(days);
      if (value !== null && !(Number.isInteger(value) && value >= 0)) throw new Error("retention must be a whole number of days (0 or more), or empty to keep the turns");
      const r = await retention.mutateAsync({ id: run.id, retainTurnsDays: value });
      return r.retainTurnsDays === null ? "The run keeps its turns." : `Turns are archived ${r.retainTurnsDays} days after the run finished.`;
    });

  return (
    <div className="card" data-testid="run-storage">
      <h2>Turn storage</h2>
      {run.archivedAt ? (
        <p data-testid="run-storage-state">
          Turns archived {formatTime(run.archivedAt)} to <code>{run.archiveUri}</code>. Trajectory lists and charts work; turn-by-turn views need a restore.
        </p>
      ) : (
        <p data-testid="run-storage-state">Turns are in the database.</p>
      )}
      <div className="row">
        {run.archivedAt ? (
          <button disabled={!canChange || busy} title={canChange ? undefined : RUN_CHANGE_RULE} onClick={() => go(async () => `Restored ${(await restore.mutateAsync({ id: run.id })).turns} turns.`)}>
            {restore.isPending ? "Restoring…" : "Restore turns"}
          </button>
        ) : (
          <button disabled={!canChange || busy} title={canChange ? undefined : RUN_CHANGE_RULE} onClick={() => go(async () => { const r = await archive.mutateAsync({ id: run.id }); return `Archived ${r.turns} turns (${(r.bytes / 1e6).toFixed(1)} MB).`; })}>
            {archive.isPending ? "Archiving…" : "Archive turns"}
          </button>
        )}
        <label>
          Archive after{" "}
          <input aria-label="retention in days" inputMode="numeric" size={5} value={days} disabled={!canChange || busy} onChange={(e) => setDays(e.target.value)} /> days
        </label>
        <button disabled={!canChange || busy} onClick={saveRetention}>
          Save retention
        </button>
      </div>
      {message && <p className="small" data-testid="run-storage-message">{message}</p>}
      {error && <p role="alert" className="error">{error}</p>}
    </div>
  );
}
