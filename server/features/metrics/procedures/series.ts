import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { metricSeries } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const metricSeriesInput = z.object({
  runId: z.string().uuid("run id must be a UUID"),
  keys: z.array(z.string().min(1).max(200)).min(1, "ask for at least one metric key").max(40, "at most 40 metric keys per request"),
  maxPoints: z.number().int().min(2).max(5000).default(400),
  axis: z.enum(["step", "time"]).default("step"),
  stepRange: z
    .object({ from: z.number().int(), to: z.number().int() })
    .refine((r) => r.from <= r.to, { message: "stepRange.from must not exceed stepRange.to" })
    .nullish(),
});

// Shared by every open chart of the run until a step commits (server/lib/live-reads.ts).
export const series = authedProcedure.input(metricSeriesInput).query(({ input }) => sharedRead("metrics.series", input, [`step:${input.runId}`], () => metricSeries(input)));
