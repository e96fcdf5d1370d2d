import { z } from "zod";
import { nodeSettingsSchema } from "../../../../contracts/node-settings";
import { nodeKinds } from "../../../../lib/node-health";
import { memberProcedure } from "../../../trpc/init";
import { addNode } from "../service";

/** A node URL: http(s), no credentials (every viewer sees node URLs; the secret belongs in the API key). */
export const nodeUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .url("must be a URL like http://host:8000")
  .refine((u) => /^https?:\/\//.test(u), "must be http(s)")
  .refine((u) => {
    if (!URL.canParse(u)) return true; // .url() reports it
    const url = new URL(u);
    return !url.username && !url.password;
  }, "must not contain a user name or password (everyone who can see nodes sees the URL); put the secret in the API key field");

export const addNodeInput = z.object({
  name: z.string().trim().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "lowercase letters, digits, - and _ (max 63)"),
  kind: z.enum(nodeKinds),
  baseUrl: nodeUrlSchema,
  apiKey: z.string().max(4096).optional(),
  /** Per-node settings (contracts/node-settings.ts), e.g. `{ openai: { stream: true, maxConcurrency: 32 } }`. */
  settings: nodeSettingsSchema.optional(),
});

/** Adds the node, then runs the node doctor on it when the caller may probe its URL (see service.ts). */
export const add = memberProcedure.input(addNodeInput).mutation(({ ctx, input }) => addNode(input, ctx.user));
