import { z } from "zod";
import { authedProcedure } from "../../../trpc/init";
import { listMetricKeys } from "../service";

export const metricKeysInput = z.object({ runId: z.string().uuid("run id must be a UUID") });

export const keys = authedProcedure.input(metricKeysInput).query(({ input }) => listMetricKeys(input.runId));
