/**
 * One environment per task: a module scope and the instances of the involved classes, persisting
 * across the task's turns and never shared with another task.
 */
import { loadLongContext } from "./data";
import { BfclInstanceSet, type InstanceSetSpec } from "./execute";
import { ModuleScope } from "./scope";

export interface BfclEnvironmentOptions {
  /** Upstream names instances `{model}_{id}_{Class}_instance`; the name can surface in string arguments. */
  modelName?: string;
  /** Data directory holding `reference/…/long_context.py` (default: ENVACE_DATA_DIR/bfcl). */
  dataDir?: string;
  /** Clock for `datetime.today()` (epoch ms). */
  now?: () => number;
}

export const DEFAULT_MODEL_NAME = "bfcl";

/** A fresh module scope (long-context constants are read from the data directory only when used). */
export function createScope(opts: Pick<BfclEnvironmentOptions, "dataDir" | "now"> = {}): ModuleScope {
  return new ModuleScope(() => loadLongContext(opts.dataDir), opts.now);
}

/** The environment a policy acts in during one task (upstream's inference-time instances). */
export function createBfclEnvironment(spec: InstanceSetSpec, opts: BfclEnvironmentOptions = {}): BfclInstanceSet {
  return new BfclInstanceSet(spec, opts.modelName ?? DEFAULT_MODEL_NAME, createScope(opts));
}
