/** The one root router: each feature module registers its router here. */
import { nodesRouter } from "./features/nodes/router";
import { runsRouter } from "./features/runs/router";
import { tokensRouter } from "./features/tokens/router";
import { usersRouter } from "./features/users/router";
import { createCallerFactory, router } from "./trpc/init";

export const appRouter = router({
  runs: runsRouter,
  nodes: nodesRouter,
  tokens: tokensRouter,
  users: usersRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
