import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { memberProcedure } from "../../../trpc/init";
import { MAX_AXES, MAX_AXIS_VALUES } from "../../../../lib/studies";
import { createStudy } from "../service";

export const createStudyInput = z.object({
  name: z.string().trim().min(1, "name is required").max(120).describe("Shown on the study page; each run is named <name> · <cell> · seed <n>"),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]).describe("Tags of every run (besides \"study\")"),
  /** Validated by the shared run-config schema in the service (errors name the field, as `config.<path>`). */
  config: z.unknown().openapi({ description: "The base run config; omitted fields take their defaults (RunConfigInput in this document)", "x-envace-schema": "RunConfigInput" }),
  grid: z
    .array(
      z.object({
        setting: z.string().trim().min(1, "name a run setting").max(200).describe("A run setting's dotted key (rollout.paradigm, policy.model; `envace runs settings` lists them)"),
        values: z.array(z.unknown()).min(1, "give at least one value").max(MAX_AXIS_VALUES, `at most ${MAX_AXIS_VALUES} values per setting`).describe("The values the setting takes, each checked by the run-config schema"),
      }),
    )
    .max(MAX_AXES, `at most ${MAX_AXES} settings in a grid`)
    .default([])
    .describe("The settings the runs differ in: every combination of their values is one group of runs"),
  seeds: z
    .union([z.number().int().min(1, "at least 1 seed").max(1000), z.array(z.number().int().min(0)).min(1).max(1000)])
    .default(1)
    .describe("How many seeds per grid cell (data.seed, data.seed + 1, …), or the seeds themselves"),
});

export const create = memberProcedure
  .meta(
    rest({
      method: "POST",
      path: "/studies",
      tag: "studies",
      access: "write",
      summary: "Launch a study: runs that differ only in a seed or a small grid of settings",
      description:
        "Builds one run per grid cell and seed from the base config, checks every cell with the run-config schema and the launch check, and creates the study, its runs and their jobs in ONE transaction (all or none). A grid over a setting that does not exist, a value the schema refuses, or more runs than the server allows (ENVACE_MAX_STUDY_RUNS, default 64) is a 400 naming the field (`grid.0.setting`, `grid.1.values.2`, `grid`, `seeds`, `config.<path>`).",
    }),
  )
  .input(createStudyInput)
  .output(z.object({ id: z.string().uuid(), runs: z.array(z.object({ id: z.string().uuid(), name: z.string() })) }))
  .mutation(({ ctx, input }) => createStudy(ctx.user.id, input, ctx.user.role));
