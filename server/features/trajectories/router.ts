import { router } from "../../trpc/init";
import { detail } from "./procedures/detail";
import { errored } from "./procedures/errored";
import { facets } from "./procedures/facets";
import { get } from "./procedures/get";
import { group } from "./procedures/group";
import { list } from "./procedures/list";
import { neighbours } from "./procedures/neighbours";
import { raw } from "./procedures/raw";
import { testTimeEpisode } from "./procedures/test-time";
import { turns } from "./procedures/turns";

export const trajectoriesRouter = router({ list, detail, group, get, turns, raw, neighbours, facets, errored, testTimeEpisode });
