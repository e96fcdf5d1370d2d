/**
 * A run's FinMCP-Bench results for the run page: Table 2's row of its latest evaluation step (TR, TP, TF1, macro and
 * micro, the per-group blocks, the replay label), built as the reports build it (server/features/reports/finmcp.ts).
 */
import { parseRunConfig } from "../../../contracts/run-config";
import { prisma } from "../../../lib/db";
import { FINMCP_DATASET_PREFIX } from "../../../lib/finmcp/datasets";
import type { FinmcpRow } from "../../../lib/reports/finmcp";
import { notFound } from "../../lib/errors";
import { finmcpRows } from "../reports/finmcp";

export async function finmcpResults(runId: string): Promise<FinmcpRow | null> {
  const run = await prisma.run.findUnique({
    where: { id: runId },
    select: { id: true, name: true, status: true, config: true, evaluatedCheckpoint: { select: { step: true, run: { select: { name: true } } } } },
  });
  if (!run) throw notFound("run", runId);
  const parsed = parseRunConfig(run.config);
  if (!parsed.ok || !parsed.config.data.dataset.startsWith(FINMCP_DATASET_PREFIX)) return null;
  const checkpoint = run.evaluatedCheckpoint ? `run "${run.evaluatedCheckpoint.run.name}" step ${run.evaluatedCheckpoint.step}` : null;
  const [row] = await finmcpRows([{ id: run.id, name: run.name, status: run.status, config: parsed.config, checkpoint }]);
  return row ?? null;
}
