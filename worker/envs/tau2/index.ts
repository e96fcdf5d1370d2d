/** Public surface of the τ² environments: the shared harness, the three domains, the run environment. */
export { RetailEnv, TOOLS, type ToolResult } from "./domains/retail/env";
export { loadRetailDb, parseRetailDb, hashRetailDb, dumpRetailDb, RetailDbError, type RetailDb } from "./domains/retail/model";
export {
  replayGoldActions,
  runCalls,
  parseCalls,
  scoreTau2Episode,
  tau2RetailInstance,
  tau2RetailInstances,
  tau2TaskInstance,
  tau2LiveInstance,
  retailToolEnvironment,
  loadTau2RetailSource,
  type GoldReplay,
  type ToolCallSpec,
  type Tau2EngineInstance,
  type Tau2RetailSource,
} from "./domains/retail/adapter";
export { loadAirlineDb, hashAirlineDb, dumpAirlineDb, type AirlineDb } from "./domains/airline/model";
export { loadTelecomDb, loadTelecomUserDb } from "./domains/telecom/model";
export { Tau2Environment } from "./harness/environment";
export { replayGold, replaySynced, taskEnvironment, runCalls as runHarnessCalls } from "./harness/replay";
export { evaluateEpisode, communicateChecks, actionChecks, type RewardBreakdown } from "./harness/evaluator";
export { passHatK, isSuccess, perTaskResults, tau2EvalMetrics, type Tau2TaskResult } from "./harness/metrics";
export { STOP_REASON, type TerminationReason } from "./harness/episode";
export { tau2Instance, scoringInputOf, verdictsOf, TAU2_NORMAL_ENDINGS } from "./harness/live";
export { loadTau2Source, loadTau2Data, tau2SourceOf } from "./harness/data";
export { fitMessagesToContext, contextFittingPolicy, TRUNCATION_MARKER } from "./harness/fit-context";
export { tau2Environments, tau2RunEnvironment, tau2RetailEnvironment, tau2Source, chooseTau2Tasks } from "./environment";
export { loadTasks, parseTasks, retailDataFiles, tau2DataFiles, dataDir, Tau2InputError, TAU2_RETAIL_DATASET, tau2InstanceId, tau2TaskIdOf, type Tau2Task } from "../../../lib/tau2/tasks";
export { retailToolSchemas, agentSystemPrompt, userSystemPrompt, renderScenario, GREETING, STOP_TOKENS } from "../../../lib/tau2/prompts";
