import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { studyDetailOutput } from "../schemas";
import { getStudy } from "../service";

export const getStudyInput = z.object({ id: z.string().uuid("study id must be a UUID") });

export const get = authedProcedure
  .meta(rest({ method: "GET", path: "/studies/{id}", tag: "studies", access: "read", summary: "Get a study: its grid, seeds, groups and runs", errors: { 404: "No such study" } }))
  .input(getStudyInput)
  .output(studyDetailOutput)
  .query(({ input }) => getStudy(input.id));
