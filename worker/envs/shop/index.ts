/** The built-in shop domain: world, tasks and gold transcripts (its oracle policy, a test double, is test/doubles/shop-oracle.ts). */
export { CATALOGUE, MAX_QTY, SHOP_TOOLS, ShopWorld, shopEnvironment, type CatalogueItem, type ShopSnapshot } from "./world";
export { SHOP_DATA_SOURCE, SHOP_SYSTEM_PROMPT, generateShopInstances, shopSplitOf, shopTaskById, shopTasks, type ShopTask } from "./tasks";
export { generateTrainingTranscripts, goldEpisodeTranscripts, rehearseCompletion, type TrainingTranscript } from "./transcripts";
