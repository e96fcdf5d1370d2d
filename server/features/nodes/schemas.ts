/** Output schemas of the node procedures (mirror `nodeSelect` and `listNodes` in service.ts; a field missing here is stripped). */
import { z } from "zod";
import { jsonColumn, storedEnum } from "../../trpc/rest";

export const nodeOutput = z
  .object({
    id: z.string().uuid(),
    name: z.string().describe("What run configs name in policy.node, reward.judge.node, …"),
    kind: storedEnum(["embedded", "openai", "tinker"]),
    baseUrl: z.string(),
    models: z.array(z.string()),
    capabilities: jsonColumn(
      z.object({ chat: z.boolean().optional(), training: z.boolean().optional(), maxContextLength: z.number().optional() })
      .passthrough(),
    ).describe("What the last probe found the node can do"),
    health: storedEnum(["unknown", "healthy", "unhealthy"]),
    healthDetail: z.string().nullable(),
    lastSeenAt: z.date().nullable(),
    createdAt: z.date(),
    createdById: z.string().nullable().describe("Who added the node (null: added before owners were recorded, or the account is gone)"),
  })
  .openapi({ ref: "Node" });

/**
 * A listed node: the API key itself never leaves the server, only whether one is set; who added it, and
 * what the caller may do with it.
 */
export const listedNodeOutput = nodeOutput
  .extend({
    addedBy: z.object({ name: z.string(), email: z.string() }).nullable(),
    hasApiKey: z.boolean(),
    canRemove: z.boolean().describe("The caller may remove this node"),
    canTest: z.boolean().describe("The caller may probe this node"),
  })
  .openapi({ ref: "ListedNode" });
