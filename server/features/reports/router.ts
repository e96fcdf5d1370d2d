import { router } from "../../trpc/init";
import { create } from "./procedures/create";
import { exportProcedure } from "./procedures/export";
import { freeze, unfreeze } from "./procedures/freeze";
import { get } from "./procedures/get";
import { list } from "./procedures/list";
import { remove } from "./procedures/remove";
import { shareCreate, shareList, shareRevoke } from "./procedures/share";
import { shared } from "./procedures/shared";
import { update } from "./procedures/update";

// `export` is a reserved word, so its procedure constant has a longer name.
export const reportsRouter = router({ export: exportProcedure, list, get, create, update, freeze, unfreeze, remove, shareCreate, shareList, shareRevoke, shared });
