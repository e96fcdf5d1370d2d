/**
 * The passes of a report's multi-pass evaluation runs (`repeats`), as the result table and the BFCL block
 * need them: one result table per pass (built from that pass's trajectories alone, by the same
 * buildResultTable), and the runs whose BFCL metrics are pooled over their passes (lib/reports/repeats.ts).
 */
import { buildResultTable } from "../../../lib/reports/document";
import type { PassTable } from "../../../lib/reports/repeats";
import { instanceOutcomes, type EvaluatedSet } from "../compare/service";

/** A set spanning several passes: an evaluation run with `repeats` > 1. */
export const multiPass = (s: EvaluatedSet): s is EvaluatedSet & { fromStep: number } => s.fromStep !== undefined && s.step > s.fromStep;

/** Each pass of each multi-pass set as its own result table (at most 64 passes per run). */
export async function passTables(runs: { id: string; name: string }[], sets: EvaluatedSet[]): Promise<PassTable[]> {
  const out: PassTable[] = [];
  for (const set of sets.filter(multiPass)) {
    const run = runs.find((r) => r.id === set.runId);
    if (!run) continue;
    for (let pass = set.fromStep; pass <= set.step; pass++) {
      const { outcomes, errored } = await instanceOutcomes([run.id], [{ ...set, fromStep: pass, step: pass }]);
      out.push({ runId: run.id, pass, table: buildResultTable([run], outcomes, errored) });
    }
  }
  return out;
}
