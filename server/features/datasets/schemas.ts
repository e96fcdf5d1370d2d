/** Output schemas of the dataset procedures (mirror `datasetSelect` in service.ts; a field missing here is stripped). */
import { z } from "zod";
// `.openapi()` on the schemas below.
import "zod-openapi/extend";

export const datasetOutput = z
  .object({
    id: z.string().uuid(),
    name: z.string().describe("Runs refer to it as dataset:<name>"),
    format: z.string().describe("cm2 (CM2 checklist rows) or tasks (instructions plus checklist items)"),
    instanceCount: z.number().int(),
    createdAt: z.date(),
  })
  .openapi({ ref: "Dataset" });

const lineError = z.object({ line: z.number().int(), message: z.string() });

export const importDatasetOutput = z.object({
  dataset: datasetOutput,
  imported: z.number().int().describe("Instances imported"),
  skipped: z.array(lineError).describe("Invalid rows left out (skipInvalid), at most 200 listed"),
  skippedCount: z.number().int(),
  tooLong: z.array(lineError).describe("Rows dropped because their prompt is over maxPromptLength − 500 Qwen3 tokens, at most 200 listed"),
  tooLongCount: z.number().int(),
});
