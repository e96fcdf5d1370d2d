import { router } from "../../trpc/init";
import { list } from "./procedures/list";
import { me } from "./procedures/me";
import { setRole } from "./procedures/set-role";

export const usersRouter = router({ me, list, setRole });
