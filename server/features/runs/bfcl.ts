/**
 * A run's BFCL results for the run page: its latest BFCL evaluation in the paper's columns, per category
 * (Avg@k, tasks, trials, trials not scored) and the notes (lib/reports/bfcl.ts builds it from the step's
 * `val/bfcl/…` metric points, as the reports do).
 */
import { prisma } from "../../../lib/db";
import { BFCL_METRIC_PREFIX, buildBfclTable, type BfclRow } from "../../../lib/reports/bfcl";
import { noteBfclPasses, poolBfclPasses } from "../../../lib/reports/repeats";
import { notFound } from "../../lib/errors";

export async function bfclResults(runId: string): Promise<BfclRow | null> {
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { id: true, name: true, kind: true } });
  if (!run) throw notFound("run", runId);
  const points = await prisma.metricPoint.findMany({
    where: { runId, key: { startsWith: BFCL_METRIC_PREFIX } },
    select: { runId: true, key: true, step: true, value: true },
  });
  // An evaluation's passes (repeats) are pooled: the mean over them, as the reports show it.
  const pooled = run.kind === "eval" ? poolBfclPasses(points, new Set(new Set(points.map((p) => p.step)).size > 1 ? [run.id] : [])) : { points, passes: new Map<string, number[]>() };
  return noteBfclPasses(buildBfclTable([run], pooled.points), points, pooled.passes)?.rows[0] ?? null;
}
