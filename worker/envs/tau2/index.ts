/** Public surface of the tau2 retail environment. */
export { RetailEnv, TOOLS, type ToolResult } from "./env";
export { loadRetailDb, parseRetailDb, hashRetailDb, dumpRetailDb, RetailDbError, type RetailDb } from "./model";
export { replayGoldActions, runCalls, parseCalls, type GoldReplay, type ToolCallSpec } from "./replay";
export { loadTasks, parseTasks, retailDataFiles, dataDir, Tau2InputError, type Tau2Task } from "./tasks";
export { retailToolSchemas, agentSystemPrompt, userSystemPrompt, renderScenario, GREETING, STOP_TOKENS } from "./prompts";
export { scoreTau2Episode, passHatK, isSuccess, communicateChecks, actionChecks, type RewardBreakdown } from "./scoring";
export { STOP_REASON, type TerminationReason } from "./episode";
export { tau2RetailInstance, tau2RetailInstances, tau2TaskInstance, retailToolEnvironment, loadTau2RetailSource, type Tau2EngineInstance } from "./adapter";
export { tau2LiveInstance, tau2EvalMetrics, perTaskResults, type Tau2TaskResult, tau2InstanceId, tau2TaskIdOf, scoringInputOf, verdictsOf, TAU2_RETAIL_DATASET, TAU2_NORMAL_ENDINGS } from "./live";
export { fitMessagesToContext, contextFittingPolicy, TRUNCATION_MARKER } from "./fit-context";
export { tau2Environments, tau2RetailEnvironment, tau2Source, chooseTau2Tasks } from "./environment";
