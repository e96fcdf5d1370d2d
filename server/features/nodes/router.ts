import { router } from "../../trpc/init";
import { add } from "./procedures/add";
import { doctor } from "./procedures/doctor";
import { list } from "./procedures/list";
import { remove } from "./procedures/remove";
import { throughput } from "./procedures/throughput";
import { update } from "./procedures/update";

export const nodesRouter = router({ list, add, update, doctor, remove, throughput });
