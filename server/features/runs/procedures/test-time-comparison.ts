import { z } from "zod";
import { testTimeArms } from "../../../../contracts/test-time";
import { memberProcedure } from "../../../trpc/init";
import { launchTestTimeComparison } from "../test-time-comparison";

export const launchTestTimeComparisonInput = z.object({
  name: z.string().trim().min(1, "name is required").max(150),
  /** The base evaluation config, validated by the shared run-config schema in the service (errors name the field). */
  config: z.unknown(),
  benchmarks: z
    .array(
      z.object({
        dataset: z.string().trim().min(1, "dataset is required").max(200),
        split: z.enum(["train", "test"]).optional(),
        instanceIds: z.array(z.string().trim().min(1).max(300)).max(10_000).optional(),
      }),
    )
    .min(1, "choose at least one benchmark")
    .max(8),
  arms: z
    .array(z.enum(testTimeArms))
    .min(1, "choose at least one arm")
    .refine((a) => new Set(a).size === a.length, "each arm once")
    .default([...testTimeArms]),
});

export const launchTestTimeComparisonProcedure = memberProcedure
  .input(launchTestTimeComparisonInput)
  .mutation(({ ctx, input }) => launchTestTimeComparison(ctx.user.id, input, ctx.user.role));
