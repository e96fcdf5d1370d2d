/** Public surface of the BFCL multi-turn environment (see README.md). */
export { BFCL_CLASS_NAMES, bfclDataDir, BfclDataError, loadFunctionDocs, loadMultiTurnTasks, MULTI_TURN_CATEGORIES } from "./data";
export type { BfclClassName, BfclTask, FunctionDoc, MultiTurnCategory } from "./data";
export { createBfclEnvironment, DEFAULT_MODEL_NAME } from "./environment";
export type { BfclEnvironmentOptions } from "./environment";
export { BfclInstanceSet } from "./execute";
export { groundTruthAgent, runBfclEpisode } from "./episode";
export type { BfclAgent, BfclAgentRequest, BfclAgentStep, BfclEpisode, BfclMessage } from "./episode";
export { checkMultiTurn } from "./checker";
export type { MultiTurnCheckResult, MultiTurnFailure, StateDifference } from "./checker";
export { multiTurnOverall, scoreCategory } from "./scores";
export type { CategoryScore, MultiTurnOverall } from "./scores";
export { HOLDOUT_USER_MESSAGE, MAXIMUM_STEP_LIMIT, toOpenAiTools, toolsPerTurn, userMessagesForTurn } from "./tools";
export { BfclDecodeError, callFromToolCall, decodePromptingCalls } from "./decode";
export { stateDigest, stateText } from "./state";
