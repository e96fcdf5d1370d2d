/**
 * An episode's outcome, decided once when it ends (lib/outcomes.ts says what the words mean):
 * - `error` when something outside the policy broke — the environment, the user simulator, the judge,
 *   the tool simulator, the policy node, a first prompt that already fills the model's context, the task
 *   itself (nothing to score) or the benchmark's scorer — with the cause in words;
 * - otherwise `success` by the benchmark's own definition: an end-of-episode score's `success` (τ²:
 *   reward 1.0; BFCL: the checker passed), or for checklist tasks every item of every checklist turn
 *   passed; anything less is a `failure`, whatever partial reward it earned.
 * Pure: it reads the episode's records and judgements only.
 */
import { errorKindLabels, errorKindOfTermination, type ErrorKind, type Outcome } from "../../lib/outcomes";
import type { TurnRecord } from "./machine";
import type { TurnJudgement } from "./reward";
import type { EpisodeScore } from "./types";

export interface EpisodeError {
  kind: ErrorKind;
  /** What failed, in words, e.g. "user simulator failed: prompt has 2073 tokens; the context length is 1024". */
  cause: string;
}

export interface EpisodeVerdict {
  outcome: Outcome;
  success: boolean;
  error?: EpisodeError;
}

const MAX_CAUSE = 1000;
const clip = (s: string) => (s.length > MAX_CAUSE ? `${s.slice(0, MAX_CAUSE)}…` : s);
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
const cause = (kind: ErrorKind, detail: string | undefined, fallback: string) => ({ kind, cause: clip(`${errorKindLabels[kind]}: ${detail ?? fallback}`) });

/** The external simulator's failure text is the reference's `{"error": …}`; its message is what matters. */
function simulatorError(content: string): string | undefined {
  try {
    const v = JSON.parse(content) as { error?: unknown };
    return text(v?.error) ?? text(content);
  } catch {
    return text(content);
  }
}

/** A generation that produced nothing because its prompt already filled the context (the node reports a length stop). */
const filledContext = (r: TurnRecord) => (r.role === "act" || r.role === "rehearse") && !r.error?.code.startsWith("GENERATION") && r.finishReason === "length" && r.responseTokenCount === 0 && r.promptTokenCount > 0;

/** The infrastructure error that ended the episode, or undefined when it ran (however it ended). */
export function episodeError(terminationReason: string, records: readonly TurnRecord[], judgements: readonly TurnJudgement[]): EpisodeError | undefined {
  const kind = errorKindOfTermination(terminationReason);
  const lastError = (pred: (r: TurnRecord) => boolean) => [...records].reverse().find((r) => r.error && pred(r));
  switch (kind) {
    case "environment": {
      const r = lastError((x) => x.role === "environment");
      return cause("environment", `${terminationReason.slice("environment_error:".length)}${text(r?.error?.payload) ? ` — ${r!.error!.payload as string}` : ""}`, terminationReason);
    }
    case "user_simulator": {
      const r = lastError((x) => x.role === "user");
      return cause("user_simulator", text(r?.error?.payload), terminationReason);
    }
    case "judge": {
      const failed = judgements.flatMap((j) => j.verdicts).find((v) => v.source === "judge" && v.callSuccess === false);
      const thrown = judgements.map((j) => (j.detail as { error?: unknown } | undefined)?.error).find(text);
      return cause("judge", text(failed?.error) ?? text(thrown), terminationReason);
    }
    case "tool_simulator": {
      const r = lastError((x) => x.role === "simulator");
      return cause("tool_simulator", r ? simulatorError(r.text) : undefined, terminationReason);
    }
    case "policy_node": {
      const r = lastError((x) => x.error?.code === "GENERATION_FAILED");
      const detail = text(r?.error?.payload);
      // A node that refuses a prompt longer than its context is the context's problem, not the node's.
      if (detail && (r?.error?.cause === "context_length_exceeded" || /context length|context window|maximum context/i.test(detail))) return cause("context", detail, terminationReason);
      return cause("policy_node", detail, terminationReason);
    }
    case "task":
      return cause("task", "the task has no checklist items to score", terminationReason);
    default:
      break;
  }
  // The episode's first generation came back empty because its prompt already filled the context: it never ran.
  const first = records.find((r) => r.role === "act" || r.role === "rehearse");
  if (first && filledContext(first)) {
    return cause("context", `the first ${first.role} prompt has ${first.promptTokenCount} tokens and leaves no room to generate`, terminationReason);
  }
  return undefined;
}

/** Checklist success: every checklist turn was judged, and in each every item passed (and no tool failure zeroed it). */
export function checklistSuccess(judgements: readonly TurnJudgement[], numChecklistTurns: number): boolean {
  if (numChecklistTurns <= 0) return false;
  const judged = judgements.filter((j) => j.allPassed !== undefined);
  return judged.length >= numChecklistTurns && judged.every((j) => j.allPassed === true);
}

/**
 * The outcome of one episode. `score` is the end-of-episode score when the instance has one (τ², BFCL):
 * its `error` makes the episode an error, its `success` (default: reward 1.0) the benchmark's verdict.
 */
export function decideOutcome(input: {
  terminationReason: string;
  records: readonly TurnRecord[];
  judgements: readonly TurnJudgement[];
  numChecklistTurns: number;
  score?: EpisodeScore;
}): EpisodeVerdict {
  const error = episodeError(input.terminationReason, input.records, input.judgements);
  if (error) return { outcome: "error", success: false, error };
  if (input.score) {
    if (text(input.score.error)) return { outcome: "error", success: false, error: cause(input.score.errorKind ?? "scoring", input.score.error, "unknown") };
    const success = input.score.success ?? Math.abs(input.score.reward - 1) <= 1e-6;
    return { outcome: success ? "success" : "failure", success };
  }
  const success = checklistSuccess(input.judgements, input.numChecklistTurns);
  return { outcome: success ? "success" : "failure", success };
}
