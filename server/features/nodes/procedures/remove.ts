import { z } from "zod";
import { adminProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { removedNodeOutput } from "../schemas";
import { removeNode } from "../service";

export const removeNodeInput = z.object({ id: z.string().uuid() });

/** Removes a node (admins only), unless a queued or running run uses it. */
export const remove = adminProcedure
  .meta(
    rest({ method: "DELETE", path: "/nodes/{id}", tag: "nodes", access: "admin", summary: "Remove a node", errors: { 404: "No such node", 409: "A queued or running run uses the node" } }),
  )
  .input(removeNodeInput)
  .output(removedNodeOutput)
  .mutation(({ ctx, input }) => removeNode(input.id, ctx.user));
