import { z } from "zod";
import { nodeSettingsSchema } from "../../../../contracts/node-settings";
import { nodeKinds } from "../../../../lib/node-health";
import { memberProcedure } from "../../../trpc/init";
import { addNode } from "../service";

export const addNodeInput = z.object({
  name: z.string().trim().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "lowercase letters, digits, - and _ (max 63)"),
  kind: z.enum(nodeKinds),
  baseUrl: z.string().trim().url("must be a URL like http://host:8000").refine((u) => /^https?:\/\//.test(u), "must be http(s)"),
  apiKey: z.string().max(4096).optional(),
  /** Per-node settings (contracts/node-settings.ts), e.g. `{ openai: { stream: true, maxConcurrency: 32 } }`. */
  settings: nodeSettingsSchema.optional(),
});

export const add = memberProcedure.input(addNodeInput).mutation(({ input }) => addNode(input));
