import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { studySummaryOutput } from "../schemas";
import { listStudies } from "../service";

export const listStudiesInput = z.object({
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().uuid().nullish().describe("nextCursor of the previous page"),
});

export const list = authedProcedure
  .meta(rest({ method: "GET", path: "/studies", tag: "studies", access: "read", summary: "List studies, newest first (keyset pages)" }))
  .input(listStudiesInput)
  .output(z.object({ items: z.array(studySummaryOutput), nextCursor: z.string().uuid().nullable() }))
  .query(({ input }) => listStudies(input));
