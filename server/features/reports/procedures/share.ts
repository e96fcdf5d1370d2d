import { z } from "zod";
import { authedProcedure, memberProcedure } from "../../../trpc/init";
import { createShareLink, listShareLinks, revokeShareLink } from "../service";

export const createShareInput = z.object({
  reportId: z.string().uuid("report id must be a UUID"),
  expiresInDays: z.number().int().min(1, "a link lives at least 1 day").max(365, "a link lives at most 365 days").default(7),
});

export const shareCreate = memberProcedure.input(createShareInput).mutation(({ ctx, input }) => createShareLink(ctx.user, input));

export const shareList = authedProcedure
  .input(z.object({ reportId: z.string().uuid("report id must be a UUID") }))
  .query(({ input }) => listShareLinks(input.reportId));

export const shareRevoke = memberProcedure
  .input(z.object({ id: z.string().uuid("share link id must be a UUID") }))
  .mutation(({ ctx, input }) => revokeShareLink(ctx.user, input.id));
