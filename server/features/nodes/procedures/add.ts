import { z } from "zod";
import { nodeSettingsSchema } from "../../../../contracts/node-settings";
import { nodeKinds } from "../../../../lib/node-health";
import { normaliseNodeUrl } from "../../../../lib/node-url";
import { adminProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { checkedNodeOutput } from "../schemas";
import { addNode } from "../service";

/**
 * A node's base URL, stored in its normal form (lib/node-url.ts): http(s), no credentials (every viewer
 * sees node URLs; the secret belongs in the API key), no query or fragment, no trailing slash.
 */
export const nodeUrlSchema = z
  .string()
  .max(2000)
  .transform((text, ctx) => {
    const parsed = normaliseNodeUrl(text);
    if (parsed.ok) return parsed.url;
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: parsed.message });
    return z.NEVER;
  });

export const addNodeInput = z.object({
  name: z.string().trim().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "lowercase letters, digits, - and _ (max 63)"),
  kind: z.enum(nodeKinds),
  baseUrl: nodeUrlSchema,
  apiKey: z.string().max(4096).optional(),
  /** Per-node settings (contracts/node-settings.ts), e.g. `{ openai: { stream: true, maxConcurrency: 32 } }`. */
  settings: nodeSettingsSchema.optional(),
});

/**
 * Adds the node, then runs the node doctor on it. Admins only: a node is infrastructure the server and
 * the worker make requests to (with its key), so who may point them at a URL is an admin; members use
 * the nodes in their runs.
 */
export const add = adminProcedure
  .meta(
    rest({
      method: "POST",
      path: "/nodes",
      tag: "nodes",
      access: "admin",
      summary: "Add a node and run the node doctor on it",
      description:
        "`baseUrl` is stored in its normal form: http(s), no user name or password (put the secret in `apiKey`), no query or fragment, no trailing slash. A node that fails the doctor is still added; its report says why, and runs on it are refused at launch until it passes.",
      errors: { 409: "A node with this name exists" },
    }),
  )
  .input(addNodeInput)
  .output(checkedNodeOutput)
  .mutation(({ ctx, input }) => addNode(input, ctx.user));
