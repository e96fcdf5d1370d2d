import { z } from "zod";
import { doctorReportSchema } from "../../../../lib/node-doctor/report";
import { memberProcedure } from "../../../trpc/init";
import { rest } from "../../../trpc/rest";
import { configuredNodeOutput, doctorReportOutput } from "../schemas";
import { doctorNode } from "../service";

export const doctorNodeInput = z.object({
  id: z.string().uuid(),
  /** The model to check; absent: the models the node's settings name, else the one it serves. */
  model: z.string().trim().min(1).max(200).optional(),
});

/** Runs the node doctor now and records its report (the same check the worker runs before every run). */
export const doctor = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/nodes/{id}/doctor",
      tag: "nodes",
      access: "write",
      summary: "Run the node doctor now",
      description: "Checks the node over its protocols (for one model, or every model its settings name) and records the report; runs on a node that fails a check its role needs are refused at launch.",
    }),
  )
  .input(doctorNodeInput)
  .output(z.object({ node: configuredNodeOutput, doctor: z.array(doctorReportOutput), reports: z.array(doctorReportSchema) }))
  .mutation(({ ctx, input }) => doctorNode(input.id, input.model, ctx.user));
