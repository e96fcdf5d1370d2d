import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { listedNodeOutput } from "../schemas";
import { listNodes } from "../service";

export const list = authedProcedure
  .meta(rest({ method: "GET", path: "/nodes", tag: "nodes", access: "read", summary: "List attached nodes with their health" }))
  .input(z.void())
  .output(z.array(listedNodeOutput))
  .query(({ ctx }) => listNodes(ctx.user));
