/**
 * Which tasks an evaluation run evaluates, and in which paradigm, as its environment chooses them
 * (worker/envs; worker/envs/index.test.ts holds the two to the same answers): the new-run form's summary
 * says what the run will log. Pure.
 * - data.instanceIds given: exactly those (BFCL drops repeats);
 * - BFCL: every task of the runnable categories named (upstream's entry counts);
 * - tau2 (retail, airline, telecom, or all three): every task of the split (only the data files know how many);
 * - VitaBench: every task of the domain's file in its language (100 in each of upstream's files);
 * - built-in domains: data.instancesPerStep tasks drawn from the split;
 * - imported datasets and MCP tasks: data.instancesPerStep drawn from the split, or all of it when smaller.
 */
import type { RunConfig } from "../contracts/run-config";
import { BFCL_V4_ENTRY_COUNTS } from "./bfcl/aggregate";
import { BFCL_DATASET_PREFIX, parseBfclDataset } from "./bfcl/categories";
import { bfclResourcesOf } from "./bfcl/not-run";
import { parseVitaDataset, VITA_DATASET_PREFIX, VITA_TASKS_PER_FILE } from "./vitabench/datasets";

export interface EvaluationTasks {
  /** How many tasks; null when only the data files know (tau2: the whole split). */
  count: number | null;
  /** At most `count`: the split may hold fewer. */
  atMost: boolean;
  /** Where they come from, in words: "data.instanceIds", "every task of bfcl:multi_turn", … */
  source: string;
}

export function evaluationTasks(config: RunConfig): EvaluationTasks {
  const { dataset, instanceIds, instancesPerStep, split } = config.data;
  const bfcl = dataset.startsWith(BFCL_DATASET_PREFIX);
  if (instanceIds.length) return { count: bfcl ? new Set(instanceIds).size : instanceIds.length, atMost: false, source: "data.instanceIds" };
  if (bfcl) {
    const parsed = parseBfclDataset(dataset, bfclResourcesOf(config.bfcl));
    const count = parsed.ok ? parsed.selection.runnable.reduce((n, c) => n + BFCL_V4_ENTRY_COUNTS[c], 0) : 0;
    return { count, atMost: false, source: `every task of ${dataset}` };
  }
  if (dataset === "tau2:all") return { count: null, atMost: false, source: `every task of the tau2 retail, telecom and airline ${split} splits` };
  if (dataset.startsWith("tau2:")) return { count: null, atMost: false, source: `every task of the ${dataset} ${split} split` };
  if (dataset.startsWith(VITA_DATASET_PREFIX)) {
    const parsed = parseVitaDataset(dataset);
    return { count: VITA_TASKS_PER_FILE, atMost: false, source: parsed.ok ? `every task of ${parsed.dataset.taskFile}` : `every task of ${dataset}` };
  }
  const imported = dataset.startsWith("dataset:") || dataset.startsWith("mcp:");
  return { count: instancesPerStep, atMost: imported, source: `drawn from the ${split} split` };
}

/**
 * The paradigm an evaluation runs in when its benchmark fixes it (the environment's `evaluationParadigm`):
 * tau2, BFCL and VitaBench run their real tools. Null: the configured one.
 */
export function forcedEvaluationParadigm(dataset: string): { paradigm: "environment"; why: string } | null {
  if (dataset.startsWith("tau2:")) return { paradigm: "environment", why: "tau2 evaluation runs the real tools" };
  if (dataset.startsWith(BFCL_DATASET_PREFIX)) return { paradigm: "environment", why: "BFCL evaluation runs the real back ends" };
  if (dataset.startsWith(VITA_DATASET_PREFIX)) return { paradigm: "environment", why: "VitaBench evaluation runs the real tools" };
  return null;
}
