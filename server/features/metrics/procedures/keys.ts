import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listMetricKeys } from "../service";
import { sharedRead } from "../../../lib/live-reads";

export const metricKeysInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

export const keys = authedProcedure.input(metricKeysInput).query(({ input }) => sharedRead("metrics.keys", input, [`step:${input.runId}`], () => listMetricKeys(input.runId)));
