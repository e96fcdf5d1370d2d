import { z } from "zod";
import { nodeSettingsSchema } from "../../../../contracts/node-settings";
import { memberProcedure } from "../../../trpc/init";
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
 * Edits a node (URL, API key, settings). Its doctor reports described the old node and are dropped;
 * the doctor runs again when the caller may probe the URL (see service.ts).
 */
export const update = memberProcedure.input(updateNodeInput).mutation(({ ctx, input }) => updateNode(input, ctx.user));
