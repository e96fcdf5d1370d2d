import { router } from "../../trpc/init";
import { create } from "./procedures/create";
import { list } from "./procedures/list";
import { revoke } from "./procedures/revoke";

export const tokensRouter = router({ create, list, revoke });
