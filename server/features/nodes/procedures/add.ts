import { z } from "zod";
import { nodeSettingsSchema } from "../../../../contracts/node-settings";
import { nodeKinds } from "../../../../lib/node-health";
import { memberProcedure } from "../../../trpc/init";
import { addNode } from "../service";

export const addNodeInput = z.object({
  name: z.string().trim().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "lowercase letters, digits, - and _ (max 63)"),
  kind: z.enum(nodeKinds),
  baseUrl: z
    .string()
    .trim()
    .max(2000)
    .url("must be a URL like http://host:8000")
    .refine((u) => /^https?:\/\//.test(u), "must be http(s)")
    // Every viewer sees node URLs: credentials belong in the API key, which is encrypted and never shown.
    .refine((u) => {
      if (!URL.canParse(u)) return true; // .url() reports it
      const url = new URL(u);
      return !url.username && !url.password;
    }, "must not contain a user name or password (everyone who can see nodes sees the URL); put the secret in the API key field"),
  apiKey: z.string().max(4096).optional(),
  /** Per-node settings (contracts/node-settings.ts), e.g. `{ openai: { stream: true, maxConcurrency: 32 } }`. */
  settings: nodeSettingsSchema.optional(),
});

export const add = memberProcedure.input(addNodeInput).mutation(({ ctx, input }) => addNode(input, ctx.user));
