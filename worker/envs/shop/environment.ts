/** The shop as a built-in domain (`builtin:shop`): its tasks by split, a seeded sample, one task by id. */
import type { BuiltinDomain } from "../environment";
import { generateShopInstances, shopTaskById, shopTasks } from "./tasks";

export const shopDomain: BuiltinDomain = { name: "shop", all: shopTasks, sample: generateShopInstances, byId: shopTaskById };
