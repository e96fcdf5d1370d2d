import { z } from "zod";
import { rest, strictBoolean } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { importDatasetOutput } from "../schemas";
import { DATASET_NAME_PATTERN, datasetFormats, importDataset, MAX_DATASET_BYTES } from "../service";

export const importDatasetInput = z.object({
  name: z
    .string()
    .trim()
    .regex(DATASET_NAME_PATTERN, "name: 1–100 letters, digits, _ or - (runs refer to it as dataset:<name>)"),
  /** The file's text: a JSON array of CM2 rows or JSONL. The byte limit is checked in the service. */
  text: z.string().min(1, "the file is empty").max(MAX_DATASET_BYTES, `the file is larger than ${MAX_DATASET_BYTES / 1024 / 1024} MB`),
  split: z.enum(["train", "test"]).default("train").describe("Which split the rows go to"),
  format: z
    .enum(datasetFormats)
    .default("auto")
    .describe("cm2: CM2 checklist rows (JSON array or JSONL); tasks: JSONL of instructions plus checklist items; auto: decided by the first row"),
  /** Import the valid rows and report the invalid ones instead of rejecting the whole file. */
  skipInvalid: strictBoolean().default(false).describe("Import the valid rows and list the invalid ones instead of rejecting the file"),
  maxChecklists: z.number().int().min(1).max(16).optional(),
  /**
   * The reference's data.max_prompt_length: rows whose prompt (chat template + tool schemas, Qwen3 tokens)
   * is longer than this − 500 are dropped and reported by line. null keeps every row.
   */
  maxPromptLength: z
    .number()
    .int()
    .min(501, "maxPromptLength must exceed the 500-token margin")
    .max(1_000_000)
    .nullable()
    .default(4000)
    .describe("Drop rows whose prompt is longer than this − 500 Qwen3 tokens (reference default 4000); null keeps all"),
});

export const importProcedure = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/datasets",
      tag: "datasets",
      access: "write",
      summary: "Import a dataset: CM2 checklist rows or a task list",
      description:
        "`text` is the file (at most 20 MB): CM2 rows as a JSON array or JSONL (runs use them as `dataset:<name>`), or a task list — JSONL of instructions plus checklist items — to run against a registered MCP server as `mcp:<server>/<name>`. `format` auto decides by the first row. All-or-nothing in one transaction unless `skipInvalid`; invalid rows are named by line in `fieldErrors` (path `line N`).",
      errors: { 409: "A dataset with this name exists" },
    }),
  )
  .input(importDatasetInput)
  .output(importDatasetOutput)
  .mutation(({ input }) => importDataset(input));
