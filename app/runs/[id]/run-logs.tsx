"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useTRPC, useTRPCClient } from "../../_lib/trpc";
import { formatTime } from "../../_lib/format";

interface LogLine {
  id: string;
  ts: Date;
  level: string;
  message: string;
}

/** Most lines kept in the browser; older ones scroll out. */
const KEEP = 5000;
const PAGE = 500;

/**
 * Live log tail: the query holds the lines seen so far, and each refetch (a log signal invalidates it,
 * app/_lib/live.ts) asks only for the lines after the last one.
 */
export function RunLogs({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const box = useRef<HTMLDivElement>(null);
  const queryKey = trpc.runs.logs.queryKey({ runId });
  const logs = useQuery({
    queryKey,
    queryFn: async (): Promise<LogLine[]> => {
      let lines = qc.getQueryData<LogLine[]>(queryKey) ?? [];
      for (;;) {
        const rows = await client.runs.logs.query({ runId, after: lines.at(-1)?.id ?? null, limit: PAGE });
        lines = [...lines, ...rows].slice(-KEEP);
        if (rows.length < PAGE) return lines;
      }
    },
  });
  const lines = logs.data ?? [];
  useEffect(() => {
    box.current?.scrollTo({ top: box.current.scrollHeight });
  }, [lines.length]);

  return (
    <div className="logs" ref={box} data-testid="run-logs" tabIndex={0} aria-label="Run logs">
      {lines.map((l) => (
        <div key={l.id} className={`log log-${l.level}`}>
          <span className="ts">{formatTime(l.ts)}</span> <span className="lvl">{l.level}</span> <span className="msg">{l.message}</span>
        </div>
      ))}
      {lines.length === 0 && <div className="muted">No log lines yet.</div>}
    </div>
  );
}
