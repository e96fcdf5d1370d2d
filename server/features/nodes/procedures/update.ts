import { z } from "zod";
import { nodeSettingsSchema } from "../../../../contracts/node-settings";
import { adminProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { checkedNodeOutput } from "../schemas";
import { updateNode } from "../service";
import { nodeUrlSchema } from "./add";

export const updateNodeInput = z
  .object({
    id: z.string().uuid(),
    baseUrl: nodeUrlSchema.optional(),
    /** A new API key; null removes the key; absent keeps it. */
    apiKey: z.string().min(1, "an empty key: send null to remove the key").max(4096).nullable().optional(),
    /** The node's settings, replaced as a whole (contracts/node-settings.ts); errors name the field. */
    settings: nodeSettingsSchema.optional(),
  })
  .refine((v) => v.baseUrl !== undefined || v.apiKey !== undefined || v.settings !== undefined, "nothing to change: give baseUrl, apiKey or settings");

/**
 * Edits a node (URL, API key, settings); admins only. Its doctor reports described the old node and are
 * dropped; the doctor runs again.
 */
export const update = adminProcedure
  .meta(
    rest({
      method: "PATCH",
      path: "/nodes/{id}",
      tag: "nodes",
      access: "admin",
      summary: "Change a node's URL, API key or settings",
      description: "Give any of `baseUrl`, `apiKey` (null removes it) and `settings` (replaced as a whole). The node's doctor reports are dropped and the doctor runs again.",
      errors: { 404: "No such node" },
    }),
  )
  .input(updateNodeInput)
  .output(checkedNodeOutput)
  .mutation(({ ctx, input }) => updateNode(input, ctx.user));
