import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { getTrajectory } from "../service";
import { MAX_TURNS_PAGE, trajectoryWithTurnsOutput } from "../schemas";

export const trajectoryDetailInput = z.object({
  runId: z.string().uuid("run id must be a UUID"),
  id: z.string().uuid("trajectory id must be a UUID"),
  turnsFrom: z.number().int().min(0).default(0).describe("Turn index the page starts at (nextTurnsFrom of the previous page)"),
  turnsLimit: z.number().int().min(1).max(MAX_TURNS_PAGE).default(100).describe(`Turns per page (at most ${MAX_TURNS_PAGE})`),
});

/** A trajectory with its verdicts and a page of its turns, for scripts (the app reads trajectories.get). */
export const detail = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/runs/{runId}/trajectories/{id}",
      tag: "runs",
      access: "read",
      summary: "Read a trajectory with its turns and checklist verdicts",
      description: `The turns (act text, tool calls, rehearsed and real responses, fidelity, tokens, advantage) come in pages of \`turnsLimit\` (default 100, at most ${MAX_TURNS_PAGE}) from \`turnsFrom\`; pass \`nextTurnsFrom\` for the next page until it is null. Every page carries all of the trajectory's checklist verdicts.`,
      errors: { 404: "No such trajectory in this run" },
    }),
  )
  .input(trajectoryDetailInput)
  .output(trajectoryWithTurnsOutput)
  .query(({ input }) => getTrajectory(input));
