/**
 * An evaluation's independent passes (`repeats`) for its run page: each committed pass's headline metrics,
 * and over them the mean with its spread (lib/reports/repeats.ts), as the reports give Avg@k.
 */
import { prisma } from "../../../lib/db";
import { spreadOf, type RepeatSpread } from "../../../lib/reports/repeats";
import { notFound } from "../../lib/errors";

/** Shown per pass when the pass has them: success (Avg over its trials), reward, BFCL's and τ²'s headlines. */
const HEADLINES = [/^val\/avg@\d+$/, /^reward\/mean$/, /^val\/bfcl\/summary\/overall$/, /^val\/tau2\/pass\^1$/];

export async function evaluationPasses(runId: string): Promise<{ keys: string[]; passes: { pass: number; finishedAt: Date; metrics: Record<string, number> }[]; spread: Record<string, RepeatSpread> }> {
  const run = await prisma.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) throw notFound("run", runId);
  const steps = await prisma.step.findMany({ where: { runId, kind: "eval" }, orderBy: { index: "asc" }, select: { index: true, finishedAt: true, metrics: true } });
  const all = steps.map((s) => s.metrics as Record<string, unknown>);
  const keys = HEADLINES.map((p) => Object.keys(all[0] ?? {}).find((k) => p.test(k))).filter((k): k is string => k !== undefined);
  const passes = steps.map((s, i) => ({
    pass: s.index,
    finishedAt: s.finishedAt,
    metrics: Object.fromEntries(keys.flatMap((k) => (typeof all[i]![k] === "number" ? [[k, all[i]![k] as number]] : []))),
  }));
  const spread = Object.fromEntries(keys.flatMap((k) => {
    const s = spreadOf(passes.map((p) => p.metrics[k]).filter((v): v is number => v !== undefined));
    return s ? [[k, s]] : [];
  }));
  return { keys, passes, spread };
}
