import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { resumeRun } from "../service";

export const resumeRunInput = z.object({ id: z.string().uuid("run id must be a UUID") });

export const resume = memberProcedure.input(resumeRunInput).mutation(({ ctx, input }) => resumeRun(input.id, ctx.user));
