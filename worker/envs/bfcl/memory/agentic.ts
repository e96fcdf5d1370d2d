/**
 * Port of upstream's `agentic_checker.py` and of how `eval_runner.py` scores a memory (or web-search) entry
 * (`_evaluate_single_agentic_entry`): the answer is the last step reply of the turn that is not a function
 * call, and one acceptable answer must occur in it as a whole word after normalisation.
 */
import { isPyWordChar } from "../single-turn/pystr";
import { extractToolCalls, stripReasoning } from "../single-turn/decode";
import { PyDict, pyJsonLoads, type PyValue } from "../single-turn/values";

/** Upstream's agentic `standardize_string`: drop `,./-_*^()`, lower-case, single → double quotes (spaces stay). */
export function standardizeAnswer(s: string): string {
  return s.replace(/[,./\-_*^()]/g, "").toLowerCase().replace(/'/g, '"');
}

/** `re.search(rf"\b{re.escape(needle)}\b", haystack)` with Python's Unicode word boundaries. */
export function containsWholeWord(haystack: string, needle: string): boolean {
  const chars = Array.from(haystack);
  const n = Array.from(needle);
  const isWordAt = (i: number) => i >= 0 && i < chars.length && isPyWordChar(chars[i]);
  const boundary = (i: number) => isWordAt(i - 1) !== isWordAt(i);
  for (let start = 0; start + n.length <= chars.length; start++) {
    let match = true;
    for (let j = 0; j < n.length; j++) {
      if (chars[start + j] !== n[j]) {
        match = false;
        break;
      }
    }
    if (match && boundary(start) && boundary(start + n.length)) return true;
  }
  return false;
}

export type AgenticCheck =
  | { valid: true }
  | { valid: false; errorType: "agentic:answer_not_found"; errorMessage: string; standardizedResponse: string; standardizedAnswers: string[] };

/** `agentic_checker(model_response, possible_answer_list)`. */
export function agenticChecker(modelResponse: string, possibleAnswers: readonly string[]): AgenticCheck {
  const standardizedAnswers = possibleAnswers.map(standardizeAnswer);
  const standardizedResponse = standardizeAnswer(modelResponse);
  if (standardizedAnswers.some((a) => containsWholeWord(standardizedResponse, a))) return { valid: true };
  return {
    valid: false,
    errorType: "agentic:answer_not_found",
    errorMessage: "None of the expected answers were found in the model response.",
    standardizedResponse,
    standardizedAnswers,
  };
}

/**
 * Whether a step reply is a function call for upstream's Qwen FC `decode_execute` (hermes `<tool_call>`
 * blocks): it is when it decodes to at least one call; a reply without calls, or whose calls do not decode,
 * is a message.
 */
export function isFunctionCallStep(replyText: string): boolean {
  const calls = extractToolCalls(stripReasoning(replyText));
  if (calls.length === 0) return false;
  for (const call of calls) {
    if (!(call instanceof PyDict) || !call.has("name") || !call.has("arguments")) return false;
    let args: PyValue = call.get("arguments") as PyValue;
    if (typeof args === "string") {
      try {
        args = pyJsonLoads(args);
      } catch {
        return false;
      }
    }
    if (!(args instanceof PyDict)) return false;
  }
  return true;
}

export interface AgenticVerdict {
  id: string;
  valid: boolean;
  errorType?: "agentic:inference_error" | "agentic:no_last_message" | "agentic:answer_not_found";
  error?: string;
  /** The reply that was checked (the last one that is not a function call). */
  answerText?: string;
}

/** `_evaluate_single_agentic_entry`: `turns` holds the step replies of each turn (exactly one turn expected). */
export function evaluateAgenticEntry(id: string, turns: readonly (readonly string[])[], possibleAnswers: readonly string[]): AgenticVerdict {
  if (turns.length !== 1) {
    return { id, valid: false, errorType: "agentic:inference_error", error: "Error during inference phase. Model did not output a list of model responses." };
  }
  let last: string | undefined;
  for (const step of turns[0]) if (!isFunctionCallStep(step)) last = stripReasoning(step);
  // Upstream tests the message for truth, so an empty last message counts as none.
  if (!last) return { id, valid: false, errorType: "agentic:no_last_message", error: "Cannot find the last chat message that is not a function call." };
  const check = agenticChecker(last, possibleAnswers);
  return check.valid ? { id, valid: true, answerText: last } : { id, valid: false, errorType: check.errorType, error: check.errorMessage, answerText: last };
}
