import { z } from "zod";
import { rest } from "../../../trpc/rest";
import { authedProcedure } from "../../../trpc/init";
import { datasetOutput } from "../schemas";
import { listDatasets } from "../service";

export const list = authedProcedure
  .meta(rest({ method: "GET", path: "/datasets", tag: "datasets", access: "read", summary: "List imported datasets, newest first" }))
  .input(z.void())
  .output(z.array(datasetOutput))
  .query(() => listDatasets());
