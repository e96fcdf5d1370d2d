import { router } from "../../trpc/init";
import { list } from "./procedures/list";
import { me } from "./procedures/me";
import { setRole } from "./procedures/set-role";
import { whoami } from "./procedures/whoami";

export const usersRouter = router({ me, whoami, list, setRole });
