import { z } from "zod";
import { rest, storedEnum } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { listTrajectories } from "../service";
import { trajectoryFiltersInput } from "./filters";
import { errorKinds } from "../../../../lib/outcomes";

export const listTrajectoriesInput = trajectoryFiltersInput.extend({
  limit: z.number().int().min(1).max(500).default(100),
  cursor: z.string().uuid().nullish().describe("nextCursor of the previous page"),
});

/** Mirrors trajectoryListSelect in the service plus its private-attempt count (a field missing here is stripped from the response). */
export const trajectorySummaryOutput = z
  .object({
    id: z.string().uuid(),
    runId: z.string().uuid(),
    step: z.number().int(),
    phase: storedEnum(["train", "eval"]).describe("train, eval, or suite:<name> for an evaluation suite's"),
    instanceId: z.string(),
    groupId: z.string(),
    rolloutIndex: z.number().int(),
    paradigm: storedEnum(["rehearse", "simulator", "environment"]),
    reward: z.number(),
    outcome: storedEnum(["success", "failure", "error"]).describe(
      "The benchmark's own verdict (τ²: reward 1.0; BFCL: the checker passed; checklist tasks: every item passed), or error: the episode could not run (see errorKind, errorCause) and is left out of every score",
    ),
    errorKind: storedEnum(errorKinds)
      .nullable()
      .describe("For outcome error: which part failed"),
    errorCause: z.string().nullable().describe("For outcome error: why, in words (e.g. \"user simulator failed: prompt has 2073 tokens; the context length is 1024\")"),
    terminationReason: z.string().describe("Why the rollout ended, e.g. finished, max_turns, act_parse_error:<CODE>"),
    actTokens: z.number().int(),
    rehearseTokens: z.number().int(),
    numTurns: z.number().int(),
    fidelity: z.number().nullable().describe("Mean rehearsal fidelity (shadow execution), when measured"),
    privateAttempts: z.number().int().describe("Private test-time rehearsal attempts behind this trajectory (0 without test-time rehearsal)"),
  })
  .openapi({ ref: "TrajectorySummary" });

export const list = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/runs/{runId}/trajectories",
      tag: "runs",
      access: "read",
      summary: "List a run's trajectories with filters (keyset pages)",
      description: "Turn bodies are not included; the app's trajectory view reads them page by page.",
    }),
  )
  .input(listTrajectoriesInput)
  .output(z.object({ items: z.array(trajectorySummaryOutput), nextCursor: z.string().uuid().nullable() }))
  .query(({ input }) => listTrajectories(input));
