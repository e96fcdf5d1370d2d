import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { runMetrics } from "../service";

export const runMetricsInput = z.object({
  id: z.string().uuid("run id must be a UUID"),
  // A single ?keys=reward/mean arrives as a string over REST; a repeated one as an array.
  keys: z
    .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.string().min(1).max(200)).max(100, "at most 100 metric keys per request"))
    .optional()
    .describe("Metric keys to return (repeat for several); default: every key of the run"),
  maxPoints: z.number().int().min(2).max(5000).default(400).describe("Downsample each series to at most this many buckets"),
  fromStep: z.number().int().optional(),
  toStep: z.number().int().optional(),
});

const point = z.object({
  step: z.number().int().describe("Step at the bucket's centre"),
  value: z.number().describe("Mean of the bucket"),
  min: z.number(),
  max: z.number(),
  n: z.number().int().describe("Raw points in the bucket"),
});

export const runMetricsOutput = z.object({
  keys: z.array(z.string()).describe("Every metric key the run has"),
  series: z.array(
    z.object({
      key: z.string(),
      total: z.number().int().describe("Raw points behind the series"),
      bucketSize: z.number().int().describe("Steps per bucket; 1 = not downsampled"),
      points: z.array(point),
    }),
  ),
});

export const metrics = authedProcedure
  .meta(
    rest({
      method: "GET",
      path: "/runs/{id}/metrics",
      tag: "runs",
      access: "read",
      summary: "Metric series of a run, downsampled by step",
      errors: { 404: "No such run" },
    }),
  )
  .input(runMetricsInput)
  .output(runMetricsOutput)
  .query(({ input }) => runMetrics(input));
