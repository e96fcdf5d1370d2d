import { router } from "../../trpc/init";
import { create } from "./procedures/create";
import { get } from "./procedures/get";
import { keys } from "./procedures/keys";
import { list } from "./procedures/list";
import { series } from "./procedures/series";
import { table } from "./procedures/table";

export const studiesRouter = router({ create, list, get, keys, series, table });
