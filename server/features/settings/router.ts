import { router } from "../../trpc/init";
import { get } from "./procedures/get";
import { update } from "./procedures/update";

export const settingsRouter = router({ get, update });
