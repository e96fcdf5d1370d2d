/**
 * The run configuration's parts: schema version, paradigms and dataset references, the node/model a role
 * names, a policy checkpoint, evaluation suites, sampling parameters and their defaults. The whole schema is
 * ./schema.ts; `contracts/run-config` (./index.ts) is what callers import.
 */
import { z } from "zod";

export const RUN_CONFIG_SCHEMA_VERSION = 1;

export const paradigms = ["rehearse", "simulator", "environment"] as const;

/** The built-in domains (worker/envs/builtin.ts: `builtinDomains` is keyed by exactly these), for `builtin:<name>`. */
export const builtinDomainNames = ["shop"] as const;
export type BuiltinDomainName = (typeof builtinDomainNames)[number];
export const BUILTIN_DATASET_PREFIX = "builtin:";
export type Paradigm = (typeof paradigms)[number];

/** A model on an attached node. `node` is the node's name ("embedded" is the built-in CPU node). */
export const nodeModelSchema = z.object({
  node: z.string().min(1, "node name is required").max(100).default("embedded").describe("Name of an attached node (Nodes page); \"embedded\" is the built-in CPU node"),
  model: z.string().min(1, "model is required").max(200).default("tiny-gpt").describe("Model name as the node serves it"),
});
export type NodeModel = z.infer<typeof nodeModelSchema>;

/**
 * The trained policy: a model on a Tinker-compatible node, trained as a LoRA adapter of `loraRank`.
 * Default 32: the Tinker SDK's create_lora_training_client default and the largest rank SkyRL tx's JAX
 * backend accepts by default (its max_lora_rank); the cookbook finds the learning rate independent of
 * the rank (tinker-cookbook skills/research/references/hyperparams.md).
 */
/**
 * A checkpoint of a training run, evaluated instead of the base model: the run by id or name, the step by
 * number or "latest". The launch check (lib/launch-check, lib/checkpoints) resolves it and pins it — the
 * stored config names the run by id and the step by number — and the run records the checkpoint it
 * evaluates (Run.evaluatedCheckpoint), so the training run lists its evaluations.
 */
export const policyCheckpointSchema = z.object({
  run: z.string().trim().min(1, "name the training run (its id or its name)").max(200).describe("The training run whose checkpoint is evaluated: its id or its name"),
  step: z
    .union([z.number().int().min(1), z.literal("latest")])
    .default("latest")
    .describe('The checkpoint\'s training step, or "latest" (the run\'s last checkpoint)'),
});
export type PolicyCheckpoint = z.infer<typeof policyCheckpointSchema>;

export const policyModelSchema = nodeModelSchema.extend({
  loraRank: z
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(32)
    .describe("LoRA rank of the trained adapter (checked against the node's limit before the run starts; the embedded node trains all weights)"),
  checkpoint: policyCheckpointSchema
    .optional()
    .describe(
      "Evaluate a training run's checkpoint instead of the base model (evaluation runs). policy.model is the base model it was trained from; policy.node the node holding it (Tinker-compatible), or an OpenAI-compatible node that loads it as a LoRA adapter",
    ),
});
export type PolicyModel = z.infer<typeof policyModelSchema>;

/** The forms of a dataset reference (data.dataset, and each evaluation suite's dataset). */
export const DATASET_REF =
  /^(builtin:[a-z0-9_-]+|tau2:(retail|airline|telecom|all)|bfcl:[a-z_]+(,[a-z_]+)*|vitabench:[a-z_]+(\/[a-z]+)?|finmcp:[A-Za-z0-9_.-]{1,100}|dataset:[A-Za-z0-9_-]+|mcp:[a-z0-9][a-z0-9_-]{0,62}\/[A-Za-z0-9_-]{1,100})$/;
export const DATASET_REF_MESSAGE = "must be builtin:<name>, tau2:retail|airline|telecom|all, bfcl:<category or group>[,…], vitabench:<domain>[/<lang>], finmcp:<file>, dataset:<id> or mcp:<server>/<dataset>";

/**
 * Suite names become metric namespaces (`val/<name>/…`) and trajectory phases (`suite:<name>`): short,
 * lowercase, and none of the namespaces an evaluation's own metrics use (`val/reward/…`, `val/tau2/…`).
 */
export const EVAL_SUITE_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
export const reservedSuiteNames = [
  "reward", "fidelity", "judge", "critic", "episode", "response_length", "prompt_length", "generation", "environment", "termination",
  "perf", "timing_s", "training", "testtime", "act", "rehearse", "rows", "actor", "suite", "suites",
] as const;
export const MAX_EVAL_SUITES = 16;

/**
 * An evaluation suite of a training run (schedule.evalSuites): another benchmark evaluated against the
 * current policy every evalEvery steps and at the end, in its own environment (lib/eval-suites.ts
 * `suiteRunConfig` is the evaluation config it runs with).
 */
export const evalSuiteSchema = z.object({
  name: z
    .string()
    .regex(EVAL_SUITE_NAME, "lowercase letters, digits, - and _ (at most 40, starting with a letter or digit)")
    .refine((n) => !(reservedSuiteNames as readonly string[]).includes(n), (n) => ({ message: `"${n}" is a metric namespace of every evaluation; choose another name` }))
    .describe("Short name of the suite: its charts are val/<name>/…, its trajectories are filtered by it"),
  dataset: z.string().regex(DATASET_REF, DATASET_REF_MESSAGE).describe("The benchmark, as data.dataset names one (bfcl:multi_turn_base, tau2:retail, tau2:airline, builtin:shop, dataset:<name>, mcp:<server>/<dataset>)"),
  split: z.enum(["train", "test"]).default("test").describe("The split its tasks come from (BFCL has one)"),
  instanceIds: z.array(z.string().min(1)).max(10_000).default([]).describe("Evaluate exactly these task ids (or give limit)"),
  limit: z.number().int().min(1).max(4096).optional().describe("Evaluate a fixed seeded sample of this many tasks of the split (or give instanceIds)"),
  repeats: z.number().int().min(1).max(64).default(1).describe("Trials per task: pass@k and avg@k use k = repeats (τ²: pass^k)"),
  paradigm: z
    .enum(paradigms)
    .optional()
    .describe("How tool calls are answered (unset: the real environment, or rehearse for an imported dataset without one; BFCL and τ² always run their real tools)"),
  userSimulator: nodeModelSchema.optional().describe("User simulator for its tasks (τ²; unset: rollout.userSimulator)"),
  judge: nodeModelSchema.optional().describe("Checklist judge for its tasks (imported datasets; unset: reward.judge)"),
});
export type EvalSuite = z.infer<typeof evalSuiteSchema>;

export const samplingSchema = z.object({
  temperature: z.number().min(0).max(5).describe("Sampling temperature (0 = greedy)"),
  topP: z.number().gt(0).max(1).describe("Nucleus sampling: keep the smallest token set whose probability reaches this"),
  maxTokens: z.number().int().min(1).max(200_000).describe("Most tokens one generation may produce"),
});
export type SamplingParams = z.infer<typeof samplingSchema>;

/** verl's loss_agg_mode values (verl/trainer/ppo/core_algos.py agg_loss). */
export const lossAggModes = ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"] as const;
export type LossAgg = (typeof lossAggModes)[number];
/** verl's KL estimators (core_algos.py kl_penalty): k1, k2 and low_var_kl (k3, clamped). */
export const klTypes = ["k1", "k2", "low_var_kl"] as const;
export type KlType = (typeof klTypes)[number];

export const trainSampling = { temperature: 1.0, topP: 1.0, maxTokens: 8000 };
export const evalSampling = { temperature: 0.6, topP: 0.95, maxTokens: 8000 };

export const testTimeModes = ["parallel", "sequential"] as const;
export type TestTimeMode = (typeof testTimeModes)[number];
/**
 * The paper's test-time sampling (its Table 3): act and rehearse at temperature 1.0 / top-p 1.0, every other
 * role (assessment, memory) at 0.01.
 */
export const testTimeSampling = {
  act: { temperature: 1.0, topP: 1.0, maxTokens: 8000 },
  rehearse: { temperature: 1.0, topP: 1.0, maxTokens: 8000 },
  assessment: { temperature: 0.01, topP: 1.0, maxTokens: 1024 },
  memory: { temperature: 0.01, topP: 1.0, maxTokens: 1024 },
} as const;

