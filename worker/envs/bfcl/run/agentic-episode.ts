/**
 * What BFCL's agentic categories (web search, memory) share: their tools come from a function-document file,
 * and a scored episode is judged by upstream's agentic checker on its last reply that is not a function call.
 */
import type { BfclOutcome } from "../../../../lib/bfcl/outcome";
import type { ToolSchema } from "../../../engine/io";
import type { EpisodeScore, EpisodeScoreContext } from "../../../engine/types";
import { BfclDataError, functionDocSchema, readJsonLines, requireBfclPath, type FunctionDoc } from "../data";
import { evaluateAgenticEntry } from "../memory/agentic";
import { outcomeVerdicts, shorten } from "../scoring/outcome";
import { toOpenAiTools } from "../tools";

/** A `multi_turn_func_doc/*.json` file as OpenAI tools; a malformed document names its file and line. */
export function functionDocTools(relativePath: string, dataDir?: string): ToolSchema[] {
  const file = requireBfclPath(relativePath, dataDir);
  const docs: FunctionDoc[] = readJsonLines(file).map(({ line, raw }) => {
    const parsed = functionDocSchema.safeParse(raw);
    if (!parsed.success) throw new BfclDataError(`${file}:${line}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
    return parsed.data;
  });
  return toOpenAiTools(docs) as ToolSchema[];
}

type OutcomeBase = Pick<BfclOutcome, "category" | "taskId" | "termination"> & Partial<Pick<BfclOutcome, "prerequisites">>;

/**
 * The score of an agentic episode: not scored (reward 0, the reason) when `unscored` says why, else the agentic
 * checker's verdict on the policy's replies against the accepted answers.
 */
export function scoreAgenticEpisode(base: OutcomeBase, answers: readonly string[], ctx: EpisodeScoreContext, unscored: string | null): EpisodeScore {
  if (unscored) {
    const outcome: BfclOutcome = { ...base, scored: false, notScoredReason: unscored, valid: false };
    return { reward: 0, error: unscored, verdicts: outcomeVerdicts(outcome, ctx), detail: { bfcl: outcome } };
  }
  const steps = ctx.records.filter((r) => r.role === "act").map((r) => r.text);
  const verdict = evaluateAgenticEntry(base.taskId, [steps], [...answers]);
  const outcome: BfclOutcome = {
    ...base,
    scored: true,
    valid: verdict.valid,
    ...(verdict.answerText !== undefined ? { answer: shorten(verdict.answerText, 2000) } : {}),
    ...(verdict.valid ? {} : { check: { errorType: verdict.errorType ?? "agentic:failed", message: verdict.error ?? "failed", details: [`expected one of: ${answers.join(" | ")}`] } }),
  };
  return { reward: verdict.valid ? 1 : 0, success: verdict.valid, verdicts: outcomeVerdicts(outcome, ctx), detail: { bfcl: outcome } };
}
