import { authedProcedure } from "../../../trpc/init";
import { listDatasets } from "../service";

export const list = authedProcedure.query(() => listDatasets());
