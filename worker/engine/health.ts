/**
 * Fail fast: a step whose generations failed (all of them, or more than the run's threshold), whose
 * sampled ids fall outside the renderer's vocabulary, or that produced no training data must stop the
 * run with a message naming the cause — never commit as a "succeeded" step trained on nothing.
 * Pure: the step calls it on its own results; the runner only fails the run with the message.
 */
import { isEnvironmentError, type TurnRecord } from "./machine";

export const stepFailureCodes = [
  "TOKENS_OUT_OF_VOCABULARY",
  "ALL_GENERATIONS_FAILED",
  "TOO_MANY_FAILED_GENERATIONS",
  "NO_TRAINING_DATA",
  "TOO_MANY_ENVIRONMENT_ERRORS",
] as const;
export type StepFailureCode = (typeof stepFailureCodes)[number];

export class StepFailedError extends Error {
  constructor(
    readonly code: StepFailureCode,
    readonly stepIndex: number,
    message: string,
  ) {
    super(message);
    this.name = "StepFailedError";
  }
}

/** The thrown error's own code for a generation the policy could not produce. */
export const VOCABULARY_CAUSE = "TOKENS_OUT_OF_VOCABULARY";

export interface GenerationHealth {
  /** Act and rehearse generations the step asked for (fidelity probes excluded). */
  attempted: number;
  failed: number;
  /** failed / attempted (0 when nothing was attempted). */
  failedShare: number;
  /** The first failure's error text. */
  firstError?: string;
  /** The first out-of-vocabulary failure's error text (it names the renderer and the ids). */
  vocabularyError?: string;
}

export function generationHealth(turns: Iterable<Pick<TurnRecord, "role" | "error">>): GenerationHealth {
  let attempted = 0;
  let failed = 0;
  let firstError: string | undefined;
  let vocabularyError: string | undefined;
  for (const t of turns) {
    if (t.role !== "act" && t.role !== "rehearse") continue;
    attempted++;
    if (t.error?.code !== "GENERATION_FAILED") continue;
    failed++;
    const text = typeof t.error.payload === "string" ? t.error.payload : "unknown error";
    firstError ??= text;
    if (t.error.cause === VOCABULARY_CAUSE) vocabularyError ??= text;
  }
  return { attempted, failed, failedShare: attempted > 0 ? failed / attempted : 0, firstError, vocabularyError };
}

/** The step's metrics for the run page (panel "Generation health"). */
export function generationHealthMetrics(h: GenerationHealth): Record<string, number> {
  return { "generation/attempted": h.attempted, "generation/failed": h.failed, "generation/failed_share": h.failedShare };
}

/**
 * Throws StepFailedError when the step must not count: ids outside the vocabulary (always fatal: the
 * node serves another model), every generation failed, or the failed share exceeds `maxFailedShare`.
 */
export function assertGenerationsHealthy(h: GenerationHealth, stepIndex: number, maxFailedShare: number, label: string): void {
  if (h.vocabularyError) throw new StepFailedError("TOKENS_OUT_OF_VOCABULARY", stepIndex, `${label}: ${h.vocabularyError}`);
  if (h.attempted > 0 && h.failed === h.attempted) {
    throw new StepFailedError("ALL_GENERATIONS_FAILED", stepIndex, `${label}: every generation failed (${h.failed} of ${h.attempted}); first error: ${h.firstError}`);
  }
  if (h.failedShare > maxFailedShare) {
    throw new StepFailedError(
      "TOO_MANY_FAILED_GENERATIONS",
      stepIndex,
      `${label}: ${h.failed} of ${h.attempted} generations failed (${(h.failedShare * 100).toFixed(0)}%, above rollout.maxFailedGenerationShare = ${maxFailedShare}); first error: ${h.firstError}`,
    );
  }
}

/** A training step that would update on nothing. */
export function assertTrainingData(datums: number, h: GenerationHealth, stepIndex: number, label: string): void {
  if (datums > 0) return;
  const why =
    h.attempted === 0
      ? "no rollout generated anything (every episode ended before its first generation)"
      : "no generation returned token ids (the prompts may fill the model's context, or the policy node returns text only; training needs a Tinker-compatible node)";
  throw new StepFailedError("NO_TRAINING_DATA", stepIndex, `${label}: no training datums — ${why}`);
}

/** Episodes whose environment failed (terminations `environment_error:<code>`): a server that did not start, crashed, hung or broke its protocol. */
export interface EnvironmentHealth {
  episodes: number;
  failed: number;
  /** failed / episodes (0 without episodes). */
  failedShare: number;
  /** The first failure: its termination reason and what the environment said. */
  firstError?: string;
}

export function environmentHealth(episodes: Iterable<{ terminationReason: string; turns: Pick<TurnRecord, "error">[] }>): EnvironmentHealth {
  let count = 0;
  let failed = 0;
  let firstError: string | undefined;
  for (const e of episodes) {
    count++;
    if (!isEnvironmentError(e.terminationReason)) continue;
    failed++;
    if (firstError === undefined) {
      const payload = [...e.turns].reverse().find((t) => t.error)?.error?.payload;
      firstError = `${e.terminationReason}${typeof payload === "string" ? ` (${payload})` : ""}`;
    }
  }
  return { episodes: count, failed, failedShare: count > 0 ? failed / count : 0, firstError };
}

/** The step's metrics for the run page. */
export function environmentHealthMetrics(h: EnvironmentHealth): Record<string, number> {
  return { "environment/errors": h.failed, "environment/error_share": h.failedShare };
}

/**
 * Throws StepFailedError when more than `maxShare` of the step's episodes ended with an environment
 * error (rollout.maxEnvironmentErrorShare), or every one of them did.
 */
export function assertEnvironmentHealthy(h: EnvironmentHealth, stepIndex: number, maxShare: number, label: string): void {
  if (h.failed === 0) return;
  if (h.failed === h.episodes || h.failedShare > maxShare) {
    const share = `${h.failed} of ${h.episodes} episodes (${(h.failedShare * 100).toFixed(0)}%)`;
    const why = h.failed === h.episodes ? "every episode" : `${share}, above rollout.maxEnvironmentErrorShare = ${maxShare},`;
    throw new StepFailedError(
      "TOO_MANY_ENVIRONMENT_ERRORS",
      stepIndex,
      `${label}: ${h.failed === h.episodes ? `${why} (${h.failed})` : why} ended with an environment error; first: ${h.firstError}`,
    );
  }
}
