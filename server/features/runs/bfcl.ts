/**
 * A run's BFCL results for the run page: its latest BFCL evaluation in the paper's columns, per category
 * (Avg@k, tasks, trials, trials not scored) and the notes (lib/reports/bfcl.ts builds it from the step's
 * `val/bfcl/…` metric points, as the reports do).
 */
import { prisma } from "../../../lib/db";
import { BFCL_METRIC_PREFIX, buildBfclTable, type BfclRow } from "../../../lib/reports/bfcl";
import { notFound } from "../../lib/errors";

export async function bfclResults(runId: string): Promise<BfclRow | null> {
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { id: true, name: true } });
  if (!run) throw notFound("run", runId);
  const points = await prisma.metricPoint.findMany({
    where: { runId, key: { startsWith: BFCL_METRIC_PREFIX } },
    select: { runId: true, key: true, step: true, value: true },
  });
  return buildBfclTable([run], points)?.rows[0] ?? null;
}
