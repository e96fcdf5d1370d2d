import { router } from "../../trpc/init";
import { checkpoints } from "./procedures/checkpoints";
import { keys } from "./procedures/keys";
import { nodes } from "./procedures/nodes";
import { series } from "./procedures/series";

export const metricsRouter = router({ keys, series, checkpoints, nodes });
