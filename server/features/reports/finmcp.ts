/**
 * What Table 2 needs of a FinMCP evaluation run from the database: the per-sample counts of its latest evaluation
 * step (each trajectory's FinMCP score detail, read in SQL without the stored messages_pred) and its `val/finmcp/…`
 * metric points at that step. Shared by the reports service and the run page.
 */
import { Prisma } from "@prisma/client";
import { prisma } from "../../../lib/db";
import { FINMCP_DATASET_PREFIX, FINMCP_METRIC_PREFIX } from "../../../lib/finmcp/datasets";
import { finmcpRow, type FinmcpRow, type FinmcpRunInput, type FinmcpSampleCounts } from "../../../lib/reports/finmcp";

interface DetailRow {
  step: number;
  detail: FinmcpSampleCounts | null;
}

/** Table 2's row of each FinMCP evaluation run among `runs`, in their order (runs without an evaluation step yet are left out). */
export async function finmcpRows(runs: readonly FinmcpRunInput[]): Promise<FinmcpRow[]> {
  const fin = runs.filter((r) => r.config.data.dataset.startsWith(FINMCP_DATASET_PREFIX) && r.config.kind === "eval");
  const rows: FinmcpRow[] = [];
  for (const run of fin) {
    const last = await prisma.trajectory.aggregate({ where: { runId: run.id, phase: "eval" }, _max: { step: true } });
    const step = last._max.step;
    if (step === null) continue;
    const details = await prisma.$queryRaw<DetailRow[]>(Prisma.sql`
      SELECT step, ((summary #> '{judgements}') -> -1 -> 'detail' -> 'finmcp') - 'messagesPred' AS detail
      FROM "trajectory" WHERE "runId" = ${run.id} AND phase = 'eval' AND step = ${step}
      ORDER BY "rolloutIndex", "instanceId"`);
    const points = await prisma.metricPoint.findMany({ where: { runId: run.id, step, key: { startsWith: FINMCP_METRIC_PREFIX } }, select: { key: true, value: true } });
    const samples = details.flatMap((d) => (d.detail ? [d.detail] : []));
    const row = finmcpRow(run, step, samples, Object.fromEntries(points.map((p) => [p.key, p.value])));
    if (row) rows.push(row);
  }
  return rows;
}
