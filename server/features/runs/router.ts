import { router } from "../../trpc/init";
import { bfcl } from "./procedures/bfcl";
import { finmcp } from "./procedures/finmcp";
import { cancel } from "./procedures/cancel";
import { checkpoints } from "./procedures/checkpoints";
import { create } from "./procedures/create";
import { evaluations } from "./procedures/evaluations";
import { checkpointEvaluations } from "./procedures/checkpoint-evaluations";
import { get } from "./procedures/get";
import { list } from "./procedures/list";
import { logs } from "./procedures/logs";
import { metrics } from "./procedures/metrics";
import { nodes } from "./procedures/nodes";
import { passes } from "./procedures/passes";
import { resume } from "./procedures/resume";
import { launchTestTimeComparisonProcedure } from "./procedures/test-time-comparison";
import { worldModelProcedure } from "./procedures/world-model";

export const runsRouter = router({ create, list, get, evaluations, checkpointEvaluations, cancel, resume, logs, metrics, nodes, checkpoints, passes, worldModel: worldModelProcedure, launchTestTimeComparison: launchTestTimeComparisonProcedure, bfcl, finmcp });
