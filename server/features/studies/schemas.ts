/**
 * Output schemas of the study procedures (server/openapi.ts documents them). They mirror the service's
 * selects field by field: a field missing here is stripped from the response.
 */
import { z } from "zod";
import { jsonColumn } from "../../trpc/rest";
import { runSummaryOutput, storedRunConfig } from "../runs/schemas";

export const gridAxisOutput = z.object({
  setting: z.string().describe("A run setting's dotted key, as --set names it (rollout.paradigm)"),
  values: z.array(z.unknown()).describe("The values the grid gives it"),
});

const cellOutput = z.object({ values: z.record(z.unknown()).describe("setting → value of the run's grid cell"), seed: z.number().int().describe("Its data.seed") });

const groupOutput = z.object({
  key: z.string().describe("The cell's values as JSON"),
  label: z.string().describe("The cell in words, e.g. paradigm=rehearse"),
  values: z.record(z.unknown()),
  runs: z.array(z.object({ id: z.string().uuid(), seed: z.number().int() })).describe("The cell's runs, one per seed"),
});

export const studySummaryOutput = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    grid: z.array(gridAxisOutput),
    seeds: z.array(z.number().int()),
    createdAt: z.date(),
    createdById: z.string(),
    createdBy: z.object({ name: z.string(), email: z.string() }),
    runs: z.record(z.number().int()).describe("Its runs counted by status"),
  })
  .openapi({ ref: "StudySummary" });

export const studyDetailOutput = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    baseConfig: storedRunConfig.describe("The base run config as launched (RunConfig)"),
    grid: z.array(gridAxisOutput),
    seeds: z.array(z.number().int()),
    createdAt: z.date(),
    createdById: z.string(),
    createdBy: z.object({ name: z.string(), email: z.string() }),
    runs: z.array(runSummaryOutput.extend({ cell: cellOutput.nullable() })),
    groups: z.array(groupOutput).describe("One per grid cell, in grid order (the first axis slowest)"),
  })
  .openapi({ ref: "Study" });

const stat = jsonColumn(
  z.object({ mean: z.number(), std: z.number().describe("Sample standard deviation across the runs (0 for one)"), n: z.number().int(), min: z.number(), max: z.number() }).nullable(),
);

export const studyTableOutput = z
  .object({
    step: z.union([z.number().int(), z.literal("latest")]),
    steps: z.array(z.number().int()).describe("Every step with an evaluation in the study"),
    groups: z.array(z.object({ key: z.string(), label: z.string(), runs: z.number().int() })),
    rows: z.array(
      z.object({
        key: z.string(),
        suite: z.string().nullable(),
        dataset: z.string(),
        split: z.string().nullable(),
        label: z.string(),
        cells: z.array(
          z.object({
            n: z.number().int().describe("Runs of the group with this evaluation at the step"),
            runs: z.number().int(),
            reward: stat,
            success: stat,
            passAtK: stat,
            steps: z.record(z.number().int()).describe("run id → the step its value comes from"),
          }),
        ).describe("One per group, in the order of groups"),
      }),
    ),
  })
  .openapi({ ref: "StudyTable" });

export const studySeriesOutput = z.object({
  bucketSize: z.number().int().describe("Steps per point (1: not downsampled)"),
  groups: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      runs: z.number().int(),
      series: z.array(
        z.object({
          key: z.string(),
          points: z.array(z.object({ step: z.number().int(), mean: z.number(), std: z.number(), min: z.number(), max: z.number(), n: z.number().int() })),
        }),
      ),
    }),
  ),
});
