/** The built-in shop domain: world, tasks, gold transcripts and an oracle policy. */
export { CATALOGUE, MAX_QTY, SHOP_TOOLS, ShopWorld, shopEnvironment, type CatalogueItem, type ShopSnapshot } from "./world";
export { SHOP_DATA_SOURCE, SHOP_SYSTEM_PROMPT, generateShopInstances, seededRandom, shopSplitOf, shopTaskById, shopTasks, type ShopTask } from "./tasks";
export { generateTrainingTranscripts, goldEpisodeTranscripts, rehearseCompletion, type TrainingTranscript } from "./transcripts";
export { createShopOraclePolicy, oracleAct, oracleRehearse } from "./oracle";
