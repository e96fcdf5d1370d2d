/**
 * The environment registry: every kind of `data.dataset`, by prefix. A new benchmark adds its kind
 * here (and its form to contracts/run-config/); the run executors need no change.
 */
import type { RunConfig } from "../../contracts/run-config";
import { bfclEnvironments } from "./bfcl/environment";
import { builtinEnvironments } from "./builtin";
import { importedDatasets } from "./dataset";
import type { EnvironmentContext, EnvironmentKind, RunEnvironment } from "./environment";
import { mcpEnvironments } from "./mcp/environment";
import { tau2Environments } from "./tau2/environment";
import { vitaEnvironments } from "./vitabench/environment";
import { finmcpEnvironments } from "./finmcp/environment";

export type { ContextAwarePolicy, EnvironmentContext, EnvironmentKind, NodePolicy, RunEnvironment } from "./environment";

const kinds: readonly EnvironmentKind[] = [builtinEnvironments, tau2Environments, bfclEnvironments, vitaEnvironments, finmcpEnvironments, importedDatasets, mcpEnvironments];

/** The kind serving a dataset reference; throws a message listing the available forms. */
export function environmentKindOf(dataset: RunConfig["data"]["dataset"]): EnvironmentKind {
  const kind = kinds.find((k) => dataset.startsWith(k.prefix));
  if (!kind) throw new Error(`dataset ${dataset} is not available to the engine (supported: ${kinds.map((k) => k.forms).join(", ")})`);
  return kind;
}

/** Open the environment a run's config names. */
export function openEnvironment(ctx: EnvironmentContext): Promise<RunEnvironment> {
  return environmentKindOf(ctx.config.data.dataset).open(ctx);
}
