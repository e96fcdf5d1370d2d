import { router } from "../../trpc/init";
import { get } from "./procedures/get";
import { importProcedure } from "./procedures/import";
import { instances } from "./procedures/instances";
import { list } from "./procedures/list";

// `import` is a reserved word, so its procedure constant has a longer name.
export const datasetsRouter = router({ import: importProcedure, list, get, instances });
