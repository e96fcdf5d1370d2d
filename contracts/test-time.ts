/**
 * Test-time rehearsal records and comparisons, shared by the worker (which writes them), the API (which
 * reads them back, validated here) and the UI:
 * - `testTimeRecordSchema`: what a committed test-time execution stores in `trajectory.summary.testTime`;
 * - `privateAttemptSummarySchema`: what each private attempt (a trajectory of phase "private") stores in
 *   `summary.privateAttempt`;
 * - the arms of a test-time comparison (no rehearsal / parallel N / sequential N); lib/test-time.ts
 *   derives each arm's config and reads a run's arm back from its config.
 */
import { z } from "zod";
import { paradigms, samplingSchema, testTimeModes } from "./run-config";

export const testTimeRecordSchema = z.object({
  mode: z.enum(testTimeModes),
  attempts: z.array(
    z.object({
      index: z.number().int().min(0),
      terminationReason: z.string(),
      /** The condensed transcript the assessment saw. */
      transcript: z.string(),
      assessment: z.string(),
      suggestion: z.string(),
      /** The whole feedback reply. */
      feedback: z.string(),
      feedbackError: z.string().optional(),
      /** The feedback reply was cut off (unclosed thinking dropped, or the token limit hit). */
      feedbackTruncated: z.boolean().optional(),
      /** Prompt + response tokens of the attempt (its generations, imagined user turns, assessment). */
      tokens: z.number().min(0),
    }),
  ),
  memory: z.string(),
  memoryError: z.string().optional(),
  /** The memory reply was cut off: an unclosed thought was dropped, or it hit its token limit (what is kept is what it finished). */
  memoryTruncated: z.boolean().optional(),
  privateTokens: z.number().min(0),
  committedParadigm: z.enum(paradigms),
  sampling: z.object({ act: samplingSchema, rehearse: samplingSchema, assessment: samplingSchema, memory: samplingSchema }),
});
export type TestTimeRecord = z.infer<typeof testTimeRecordSchema>;

export const privateAttemptSummarySchema = z.object({
  index: z.number().int().min(0),
  mode: z.enum(testTimeModes).optional(),
  assessment: z.string(),
  suggestion: z.string(),
  feedbackError: z.string().optional(),
  tokens: z.number().min(0),
});
export type PrivateAttemptSummary = z.infer<typeof privateAttemptSummarySchema>;

// ---------- comparisons ----------

/** The arms of a comparison, in the paper's row order. */
export const testTimeArms = ["none", "parallel", "sequential"] as const;
export type TestTimeArm = (typeof testTimeArms)[number];
