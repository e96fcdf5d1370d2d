/**
 * Fail fast: a step whose generations failed (all of them, or more than the run's threshold), whose
 * sampled ids fall outside the renderer's vocabulary, whose episodes errored (all of them, or more than
 * the run's threshold), or that produced no training data must stop the run with a message naming the
 * cause — never commit as a "succeeded" step trained on nothing.
 * Pure: the step calls it on its own results; the runner only fails the run with the message.
 */
import type { TurnRecord } from "./machine";
import { describeErrored, type ErrorKind } from "../../lib/outcomes";

export const stepFailureCodes = [
  "TOKENS_OUT_OF_VOCABULARY",
  "ALL_GENERATIONS_FAILED",
  "TOO_MANY_FAILED_GENERATIONS",
  "NO_TRAINING_DATA",
  "TOO_MANY_ERRORED_EPISODES",
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

/**
 * Episodes that could not run (outcome "error": the environment, the user simulator, the judge, the tool
 * simulator or the policy node failed, or a prompt did not fit the context — outcome.ts), by cause.
 */
export interface EpisodeHealth {
  episodes: number;
  /** Episodes with outcome "error". */
  errored: number;
  /** errored / episodes (0 without episodes). */
  erroredShare: number;
  /** Errored episodes per cause (ErrorKind). */
  byKind: Partial<Record<ErrorKind, number>>;
  /** The first errored episode's cause, e.g. "user simulator failed: prompt has 2073 tokens; the context length is 1024". */
  firstError?: string;
}

export function episodeHealth(episodes: Iterable<{ outcome: string; error?: { kind: ErrorKind; cause: string } }>): EpisodeHealth {
  let count = 0;
  let errored = 0;
  let firstError: string | undefined;
  const byKind: Partial<Record<ErrorKind, number>> = {};
  for (const e of episodes) {
    count++;
    if (e.outcome !== "error") continue;
    errored++;
    if (e.error) byKind[e.error.kind] = (byKind[e.error.kind] ?? 0) + 1;
    firstError ??= e.error?.cause ?? "unknown cause";
  }
  return { episodes: count, errored, erroredShare: count > 0 ? errored / count : 0, byKind, firstError };
}

/**
 * The step's metrics for the run page: errored episodes in all and per cause; `environment/*` keep
 * counting the environment's own failures (their chart keys predate the other causes).
 */
export function episodeHealthMetrics(h: EpisodeHealth): Record<string, number> {
  const m: Record<string, number> = {
    "episodes/total": h.episodes,
    "episodes/errored": h.errored,
    "episodes/errored_share": h.erroredShare,
    "environment/errors": h.byKind.environment ?? 0,
    "environment/error_share": h.episodes > 0 ? (h.byKind.environment ?? 0) / h.episodes : 0,
  };
  for (const [kind, n] of Object.entries(h.byKind)) m[`episodes/errored/${kind}`] = n;
  return m;
}

/**
 * Throws StepFailedError when every episode of the step errored, or more than `maxShare` of them did
 * (rollout.maxEnvironmentErrorShare, "Errored episodes allowed"): a result computed over what is left
 * would not describe the policy. The message names the share, the causes and the first cause.
 */
export function assertEpisodesHealthy(h: EpisodeHealth, stepIndex: number, maxShare: number, label: string): void {
  if (h.errored === 0) return;
  if (h.errored < h.episodes && h.erroredShare <= maxShare) return;
  const causes = describeErrored(h.byKind);
  const what =
    h.errored === h.episodes
      ? `every episode (${h.errored} of ${h.episodes}) errored`
      : `${h.errored} of ${h.episodes} episodes (${(h.erroredShare * 100).toFixed(0)}%) errored, above rollout.maxEnvironmentErrorShare = ${maxShare}`;
  throw new StepFailedError("TOO_MANY_ERRORED_EPISODES", stepIndex, `${label}: ${what}${causes ? ` (${causes})` : ""}; first: ${h.firstError}`);
}
