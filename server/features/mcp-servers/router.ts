import { router } from "../../trpc/init";
import { list } from "./procedures/list";
import { register } from "./procedures/register";
import { remove } from "./procedures/remove";
import { test } from "./procedures/test";
import { update } from "./procedures/update";

export const mcpServersRouter = router({ list, register, update, test, remove });
