import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { runDetailOutput } from "../schemas";
import { getRun } from "../service";
import { shareResult } from "../../../lib/live-reads";

export const getRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });

// Shared by every open page of the run until the run changes (server/lib/live-reads.ts).
export const get = authedProcedure
  .meta(rest({ method: "GET", path: "/runs/{id}", tag: "runs", access: "read", summary: "Get a run with its config and progress", errors: { 404: "No such run" } }))
  .input(getRunInput)
  .use(({ input, next }) => shareResult("runs.get", input, [`run:${input.id}`], () => next()))
  .output(runDetailOutput)
  .query(({ input }) => getRun(input.id));
