import { router } from "../../trpc/init";
import { keys } from "./procedures/keys";
import { series } from "./procedures/series";

export const metricsRouter = router({ keys, series });
