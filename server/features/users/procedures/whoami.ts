import { z } from "zod";
import { rest, storedEnum } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";

export const whoamiOutput = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: storedEnum(["admin", "member", "viewer"]),
  via: z.enum(["session", "token"]).describe("How the request authenticated"),
});

/** The caller behind a token (401 for an unknown one): `envace login` checks a token with it. */
export const whoami = authedProcedure
  .meta(rest({ method: "GET", path: "/me", tag: "account", access: "read", summary: "Who the token belongs to, and the role it acts with" }))
  .input(z.void())
  .output(whoamiOutput)
  .query(({ ctx }) => ctx.user);
