"use client";
/** A run's FinMCP-Bench results: Table 2's row (TR, TP, TF1, macro and micro) and the per-group blocks, the replay labelled. */
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";
import { FinmcpTableView } from "../../_components/report/finmcp-table";

export function FinmcpResults({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.runs.finmcp.queryOptions({ runId }));
  if (q.error) return <p role="alert" className="error">{q.error.message}</p>;
  const row = q.data;
  if (!row) return null;
  return (
    <section aria-labelledby="run-finmcp-heading" data-testid="finmcp-results">
      <h2 id="run-finmcp-heading">FinMCP-Bench results (Table 2){row.replay ? " — replay" : ""}</h2>
      <div className="card">
        <FinmcpTableView table={{ rows: [row] }} linkRuns={false} />
      </div>
    </section>
  );
}
