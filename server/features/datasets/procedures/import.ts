import { z } from "zod";
import { memberProcedure } from "../../../trpc/init";
import { DATASET_NAME_PATTERN, importDataset, MAX_DATASET_BYTES } from "../service";

export const importDatasetInput = z.object({
  name: z
    .string()
    .trim()
    .regex(DATASET_NAME_PATTERN, "name: 1–100 letters, digits, _ or - (runs refer to it as dataset:<name>)"),
  /** The file's text: a JSON array of CM2 rows or JSONL. The byte limit is checked in the service. */
  text: z.string().min(1, "the file is empty").max(MAX_DATASET_BYTES, `the file is larger than ${MAX_DATASET_BYTES / 1024 / 1024} MB`),
  split: z.enum(["train", "test"]).default("train"),
  /** Import the valid rows and report the invalid ones instead of rejecting the whole file. */
  skipInvalid: z.boolean().default(false),
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

export const importProcedure = memberProcedure.input(importDatasetInput).mutation(({ input }) => importDataset(input));
