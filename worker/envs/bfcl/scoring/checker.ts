/**
 * Port of upstream's multi-turn checker (`multi_turn_checker` with the pre-checks of
 * `_evaluate_single_multi_turn_entry`): the model's decoded calls and the ground truth run turn by
 * turn on separate instances (sharing one module scope, as upstream's process does); after every turn
 * with a non-empty ground truth, the model must have answered (empty_turn_model_response), the public
 * attributes of every instance must equal the ground truth's (instance_state_mismatch), and every
 * ground-truth result of the turn must appear among all the model's results so far, as a multiset
 * (execution_response_mismatch). The failure names its turn and what differed.
 */
import { pyEq, pyRepr, type PyValue } from "../../../../lib/python/values";
import type { BfclTask } from "../data";
import { createScope, DEFAULT_MODEL_NAME, type BfclEnvironmentOptions } from "../world";
import { BfclInstanceSet } from "../execute";

export type MultiTurnErrorType =
  | "multi_turn:force_terminated"
  | "multi_turn:empty_turn_model_response"
  | "multi_turn:instance_state_mismatch"
  | "multi_turn:execution_response_mismatch";

export interface StateDifference {
  attribute: string;
  /** Python repr of the model's value and the ground truth's. */
  model: string;
  groundTruth: string;
}

export interface MultiTurnFailure {
  errorType: MultiTurnErrorType;
  /** Upstream's error_message text. */
  message: string;
  /** The turn that failed (absent for force termination, which concerns the whole task). */
  turn?: number;
  /** instance_state_mismatch: the class and its differing public attributes. */
  className?: string;
  differences?: StateDifference[];
  /** execution_response_mismatch: ground-truth results the model never produced. */
  missing?: string[];
}

export interface MultiTurnExecution {
  /** Per turn: the model's results per step. */
  model: string[][][];
  /** Per turn: the ground truth's results. */
  groundTruth: string[][];
}

export interface MultiTurnCheckResult {
  valid: boolean;
  failure?: MultiTurnFailure;
  execution: MultiTurnExecution;
}

/**
 * Check one task. `modelTurns[turn][step]` are the decoded call strings of each step (steps that
 * decoded to nothing are dropped by the caller, as upstream does before checking).
 */
export function checkMultiTurn(task: BfclTask, modelTurns: readonly (readonly string[])[][], opts: BfclEnvironmentOptions = {}): MultiTurnCheckResult {
  const execution: MultiTurnExecution = { model: [], groundTruth: [] };
  const groundTruth = task.groundTruth;
  if (modelTurns.length !== groundTruth.length) {
    return {
      valid: false,
      execution,
      failure: {
        errorType: "multi_turn:force_terminated",
        message: `Model was force-terminated during inference phase. The length of the model result turns (${modelTurns.length}) does not match the length of the ground truth turns (${groundTruth.length}).`,
      },
    };
  }
  const modelName = opts.modelName ?? DEFAULT_MODEL_NAME;
  const scope = createScope(opts);
  const model = new BfclInstanceSet(task, `${modelName}_eval`, scope);
  const truth = new BfclInstanceSet(task, `${modelName}_ground_truth_eval`, scope);
  const allModelResults: string[] = [];

  for (let turn = 0; turn < groundTruth.length; turn++) {
    const steps = modelTurns[turn];
    const stepResults = steps.map((calls) => model.execute(calls));
    const truthResults = truth.execute(groundTruth[turn]);
    allModelResults.push(...stepResults.flat());
    execution.model.push(stepResults);
    execution.groundTruth.push(truthResults);

    if (groundTruth[turn].length === 0) continue;
    if (steps.length === 0 || (steps.length === 1 && steps[0].length === 0)) {
      return {
        valid: false,
        execution,
        failure: { errorType: "multi_turn:empty_turn_model_response", message: `Model response list is empty for turn ${turn}`, turn },
      };
    }

    for (const [className, truthBackend] of truth.instances) {
      const modelState = new Map(model.instances.get(className)!.publicState());
      const differences: StateDifference[] = [];
      for (const [attribute, truthValue] of truthBackend.publicState()) {
        const modelValue = modelState.get(attribute) as PyValue;
        if (!pyEq(modelValue, truthValue)) differences.push({ attribute, model: pyRepr(modelValue), groundTruth: pyRepr(truthValue) });
      }
      if (differences.length > 0) {
        return {
          valid: false,
          execution,
          failure: {
            errorType: "multi_turn:instance_state_mismatch",
            message: `Model instance for ${className} does not match the state with ground truth instance.`,
            turn,
            className,
            differences,
          },
        };
      }
    }

    const missing = missingFrom(truthResults, allModelResults);
    if (missing.length > 0) {
      return {
        valid: false,
        execution,
        failure: {
          errorType: "multi_turn:execution_response_mismatch",
          message: `Model response execution results so far does not contain all the ground truth response execution results for turn ${turn}.`,
          turn,
          missing,
        },
      };
    }
  }
  return { valid: true, execution };
}

/** Upstream's `_is_subsequence_unordered`: items of `wanted` not matched one-for-one in `have`. */
export function missingFrom(wanted: readonly string[], have: readonly string[]): string[] {
  const pool = new Map<string, number>();
  for (const h of have) pool.set(h, (pool.get(h) ?? 0) + 1);
  const missing: string[] = [];
  for (const w of wanted) {
    const n = pool.get(w) ?? 0;
    if (n > 0) pool.set(w, n - 1);
    else missing.push(w);
  }
  return missing;
}
