import { router } from "../../trpc/init";
import { get } from "./procedures/get";
import { list } from "./procedures/list";
import { register } from "./procedures/register";
import { remove } from "./procedures/remove";
import { test } from "./procedures/test";
import { update } from "./procedures/update";

export const mcpServersRouter = router({ list, get, register, update, test, remove });
