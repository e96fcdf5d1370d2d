/** The one root router: each feature module registers its router here. */
import { compareRouter } from "./features/compare/router";
import { datasetsRouter } from "./features/datasets/router";
import { mcpServersRouter } from "./features/mcp-servers/router";
import { metricsRouter } from "./features/metrics/router";
import { nodesRouter } from "./features/nodes/router";
import { reportsRouter } from "./features/reports/router";
import { runsRouter } from "./features/runs/router";
import { settingsRouter } from "./features/settings/router";
import { studiesRouter } from "./features/studies/router";
import { tokensRouter } from "./features/tokens/router";
import { trajectoriesRouter } from "./features/trajectories/router";
import { usersRouter } from "./features/users/router";
import { createCallerFactory, router } from "./trpc/init";

export const appRouter = router({
  datasets: datasetsRouter,
  runs: runsRouter,
  studies: studiesRouter,
  nodes: nodesRouter,
  mcpServers: mcpServersRouter,
  tokens: tokensRouter,
  users: usersRouter,
  metrics: metricsRouter,
  compare: compareRouter,
  reports: reportsRouter,
  trajectories: trajectoriesRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
