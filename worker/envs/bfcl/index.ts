/** Public surface of the BFCL multi-turn environment (see README.md). */
export { BFCL_CLASS_NAMES, bfclDataDir, BfclDataError, loadFunctionDocs, loadMultiTurnTasks, MULTI_TURN_CATEGORIES } from "./data";
export type { BfclClassName, BfclTask, FunctionDoc, MultiTurnCategory } from "./data";
export { createBfclEnvironment, DEFAULT_MODEL_NAME } from "./world";
export type { BfclEnvironmentOptions } from "./world";
export { BfclInstanceSet } from "./execute";
export { groundTruthAgent, runBfclEpisode } from "./episode";
export type { BfclAgent, BfclAgentRequest, BfclAgentStep, BfclEpisode, BfclMessage } from "./episode";
export { checkMultiTurn } from "./scoring/checker";
export type { MultiTurnCheckResult, MultiTurnFailure, StateDifference } from "./scoring/checker";
export { multiTurnOverall, scoreCategory } from "./scoring/scores";
export type { CategoryScore, MultiTurnOverall } from "./scoring/scores";
export { HOLDOUT_USER_MESSAGE, MAXIMUM_STEP_LIMIT, toOpenAiTools, toolsPerTurn, userMessagesForTurn } from "./tools";
export { BfclDecodeError, callFromToolCall, decodePromptingCalls } from "./decode";
export { stateDigest, stateText } from "./state";
