/**
 * The config of an evaluation of a training run's checkpoint on a benchmark — what "Evaluate this
 * checkpoint…" on the run page and `envace runs evaluate` start from (the launch check then resolves and
 * pins the checkpoint). From the training run it keeps what belongs to the policy and its nodes: the node
 * and base model, the sampling, the per-episode limits, the judge and the simulators; from the benchmark
 * the rest: its test split, the real environment (a benchmark with its own tools is measured against
 * them; an imported dataset without tools keeps the trained paradigm), BFCL's longer episodes. Pure.
 */
import { bfclEvalPreset, parseRunConfig, type RunConfigInput } from "../contracts/run-config";

export interface CheckpointChoice {
  /** The training run: its id (names are resolved by the caller). */
  runId: string;
  step: number | "latest";
  dataset: string;
  split?: "train" | "test";
  repeats?: number;
}

export function checkpointEvaluationConfig(trainingConfig: unknown, choice: CheckpointChoice): RunConfigInput {
  const parsed = parseRunConfig(trainingConfig);
  // A stored config this version cannot read: the launch check refuses the checkpoint and says so.
  const train = parsed.ok ? parsed.config : defaults();
  const bfcl = choice.dataset.startsWith("bfcl:");
  const noWorld = choice.dataset.startsWith("dataset:");
  const paradigm = noWorld ? train.rollout.paradigm : "environment";
  return {
    kind: "eval",
    policy: { node: train.policy.node, model: train.policy.model, loraRank: train.policy.loraRank, checkpoint: { run: choice.runId, step: choice.step } },
    data: { dataset: choice.dataset, split: choice.split ?? "test", instancesPerStep: train.data.instancesPerStep, seed: train.data.seed },
    rollout: {
      ...train.rollout,
      paradigm,
      shadowExecution: paradigm === "rehearse" ? train.rollout.shadowExecution : false,
      ...(bfcl ? bfclEvalPreset.rollout : {}),
    },
    sampling: train.sampling,
    reward: { ...train.reward, rehearsalGrounding: 0 },
    trialsPerTask: 1,
    repeats: choice.repeats ?? 1,
  };
}

function defaults() {
  const d = parseRunConfig({});
  if (!d.ok) throw new Error("the run-config defaults do not parse");
  return d.config;
}
