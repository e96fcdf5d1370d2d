import { router } from "../../trpc/init";
import { runs } from "./procedures/runs";

export const compareRouter = router({ runs });
