import { router } from "../../trpc/init";
import { add } from "./procedures/add";
import { list } from "./procedures/list";
import { remove } from "./procedures/remove";
import { test } from "./procedures/test";
import { throughput } from "./procedures/throughput";

export const nodesRouter = router({ list, add, test, remove, throughput });
