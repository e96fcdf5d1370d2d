/**
 * Scoring one single-turn entry from its decoded reply, as upstream's `eval_runner.py` does
 * (`_evaluate_single_ast_entry`, `_evaluate_single_relevance_entry`), with upstream's error types:
 * `ast_decoder:decoder_failed`, `ast_decoder:decoder_wrong_output_format`, the checker's own types
 * (`simple_function_checker:wrong_count`, `type_error:simple`, …), `irrelevance_error:decoder_success`,
 * `relevance_error:decoder_failed`. A category's accuracy is correct / entries, as upstream.
 *
 * One deliberate difference: where upstream's checker would raise (malformed data or output that crashes its
 * Python code, which aborts upstream's whole run), the entry fails with `checker:crash` and the exception.
 */
import { astChecker, CheckerCrash, isEmptyOutput, isFunctionCallingFormat, type CheckError, type CheckerOptions } from "./ast-checker";
import type { Decoded } from "./decode";
import type { SingleTurnEntry } from "./data";
import { isAstCategory } from "./data";

export interface EntryVerdict {
  id: string;
  valid: boolean;
  errorType?: string;
  error?: CheckError[];
}

/** `_evaluate_single_ast_entry`. */
export function evaluateAstEntry(entry: SingleTurnEntry, decoded: Decoded, options: CheckerOptions = {}): EntryVerdict {
  if (!isAstCategory(entry.category) || !entry.possibleAnswer) throw new Error(`${entry.id}: not an AST entry`);
  if (!decoded.ok) return { id: entry.id, valid: false, errorType: "ast_decoder:decoder_failed", error: [`Invalid syntax. Failed to decode AST. ${decoded.error}`] };
  if (!isFunctionCallingFormat(decoded.value)) {
    return {
      id: entry.id,
      valid: false,
      errorType: "ast_decoder:decoder_wrong_output_format",
      error: ["Did not output in the specified format. Note: the model_result is wrapped in a string to ensure json serializability."],
    };
  }
  try {
    const r = astChecker(entry.functions, decoded.value, entry.possibleAnswer, entry.language, entry.category, options);
    return r.valid ? { id: entry.id, valid: true } : { id: entry.id, valid: false, errorType: r.errorType, error: r.error };
  } catch (err) {
    if (!(err instanceof CheckerCrash)) throw err;
    return { id: entry.id, valid: false, errorType: "checker:crash", error: [err.message] };
  }
}

/** `_evaluate_single_relevance_entry`: irrelevance passes without a function call, relevance with one. */
export function evaluateRelevanceEntry(entry: SingleTurnEntry, decoded: Decoded): EntryVerdict {
  const containsCall = decoded.ok && !isEmptyOutput(decoded.value);
  if (entry.category.includes("irrelevance")) {
    return containsCall
      ? { id: entry.id, valid: false, errorType: "irrelevance_error:decoder_success", error: ["Valid syntax. Successfully decode AST when it should not."] }
      : { id: entry.id, valid: true };
  }
  return containsCall
    ? { id: entry.id, valid: true }
    : {
        id: entry.id,
        valid: false,
        errorType: "relevance_error:decoder_failed",
        error: [`Invalid syntax. Failed to decode AST when it should have. ${decoded.ok ? "None" : decoded.error}`],
      };
}

/** Either evaluation, by the entry's category. */
export function evaluateSingleTurnEntry(entry: SingleTurnEntry, decoded: Decoded, options: CheckerOptions = {}): EntryVerdict {
  return isAstCategory(entry.category) ? evaluateAstEntry(entry, decoded, options) : evaluateRelevanceEntry(entry, decoded);
}

export interface CategoryScore {
  accuracy: number;
  correctCount: number;
  totalCount: number;
}

/** Upstream's `save_eval_results` header: accuracy = correct / number of results. */
export function categoryScore(verdicts: readonly EntryVerdict[]): CategoryScore {
  const correct = verdicts.filter((v) => v.valid).length;
  if (verdicts.length === 0) throw new Error("a category score needs at least one result");
  return { accuracy: correct / verdicts.length, correctCount: correct, totalCount: verdicts.length };
}
