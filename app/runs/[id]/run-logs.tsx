"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTRPCClient } from "../../_lib/trpc";
import { useChangeEvents } from "../../_lib/live";
import { formatTime } from "../../_lib/format";

interface LogLine {
  id: string;
  ts: Date;
  level: string;
  message: string;
}

/** Live log tail: fetches only lines after the last one seen, when the server signals new lines. */
export function RunLogs({ runId }: { runId: string }) {
  const client = useTRPCClient();
  const [lines, setLines] = useState<LogLine[]>([]);
  const last = useRef<string | null>(null);
  const inFlight = useRef(false);
  const again = useRef(false);
  const box = useRef<HTMLDivElement>(null);

  const fetchMore = useCallback(async () => {
    if (inFlight.current) {
      again.current = true;
      return;
    }
    inFlight.current = true;
    try {
      do {
        again.current = false;
        const rows = await client.runs.logs.query({ runId, after: last.current, limit: 500 });
        if (rows.length) {
          last.current = rows[rows.length - 1]!.id;
          setLines((prev) => [...prev, ...rows].slice(-5000));
          if (rows.length === 500) again.current = true;
        }
      } while (again.current);
    } finally {
      inFlight.current = false;
    }
  }, [client, runId]);

  useEffect(() => {
    fetchMore();
  }, [fetchMore]);
  useChangeEvents(
    useCallback(
      (e: { t: string; id: string }) => {
        if (e.t === "log" && e.id === runId) fetchMore();
      },
      [runId, fetchMore],
    ),
  );
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
