/** Output schemas of the node procedures (mirror `nodeSelect` and `listNodes` in service.ts; a field missing here is stripped). */
import { z } from "zod";
import { nodeSettingsSchema } from "../../../contracts/node-settings";
import { doctorReportSchema } from "../../../lib/node-doctor/report";
import { jsonColumn, storedEnum } from "../../trpc/rest";

export const nodeOutput = z
  .object({
    id: z.string().uuid(),
    name: z.string().describe("What run configs name in policy.node, reward.judge.node, …"),
    kind: storedEnum(["embedded", "openai", "tinker", "search"]),
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

/** One node-doctor report (lib/node-doctor/report.ts) and who ran it. */
export const doctorReportOutput = doctorReportSchema.extend({ checkedBy: z.string().describe('"server" (add, edit, Run doctor, launch) or "worker" (before a run)') }).openapi({ ref: "DoctorReport" });

/** A node with its settings (never its API key). */
export const configuredNodeOutput = nodeOutput
  .extend({ settings: jsonColumn(nodeSettingsSchema).describe("Per-node settings (renderers per model, Tinker and OpenAI client settings)") })
  .openapi({ ref: "ConfiguredNode" });

/** A node with its settings and its latest doctor report per model. */
export const checkedNodeOutput = configuredNodeOutput
  .extend({ doctor: z.array(doctorReportOutput).describe("The node doctor's latest report per model") })
  .openapi({ ref: "CheckedNode" });

/**
 * A listed node: the API key itself never leaves the server, only whether one is set; who added it, and
 * what the caller may do with it.
 */
export const listedNodeOutput = checkedNodeOutput
  .extend({
    addedBy: z.object({ name: z.string(), email: z.string() }).nullable(),
    hasApiKey: z.boolean(),
    canRemove: z.boolean().describe("The caller may remove this node"),
    canTest: z.boolean().describe("The caller may probe this node"),
    canEdit: z.boolean().describe("The caller may change this node"),
    inFlight: z.number().int().describe("OpenAI-protocol requests in flight to this node now, from every worker (live leases)"),
    concurrencyLimit: z.number().int().describe("The node's openai.maxConcurrency: the most requests in flight from all workers together"),
  })
  .openapi({ ref: "ListedNode" });

export const removedNodeOutput = z.object({ id: z.string().uuid() });
