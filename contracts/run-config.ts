/**
 * The run configuration: ONE zod schema shared by the API, the UI form and the worker.
 * Defaults follow the EnvACE reference launch scripts (shared docs envace-method.md §5,
 * design-brief §4). Every field has a default so `{}` parses to the reference config.
 */
import { z } from "zod";

export const RUN_CONFIG_SCHEMA_VERSION = 1;

export const paradigms = ["rehearse", "simulator", "environment"] as const;
export type Paradigm = (typeof paradigms)[number];

/** A model on an attached node. `node` is the node's name ("embedded" is the built-in CPU node). */
export const nodeModelSchema = z.object({
  node: z.string().min(1, "node name is required").max(100).default("embedded"),
  model: z.string().min(1, "model is required").max(200).default("tiny-gpt"),
});
export type NodeModel = z.infer<typeof nodeModelSchema>;

/**
 * The trained policy: a model on a Tinker-compatible node, trained as a LoRA adapter of `loraRank`.
 * Default 32: the Tinker SDK's create_lora_training_client default and the largest rank SkyRL tx's JAX
 * backend accepts by default (its max_lora_rank); the cookbook finds the learning rate independent of
 * the rank (tinker-cookbook skills/research/references/hyperparams.md).
 */
export const policyModelSchema = nodeModelSchema.extend({
  loraRank: z
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(32)
    .describe("LoRA rank of the trained adapter (checked against the node's limit before the run starts; the embedded node trains all weights)"),
});
export type PolicyModel = z.infer<typeof policyModelSchema>;

export const samplingSchema = z.object({
  temperature: z.number().min(0).max(5),
  topP: z.number().gt(0).max(1),
  maxTokens: z.number().int().min(1).max(200_000),
});
export type SamplingParams = z.infer<typeof samplingSchema>;

/** verl's loss_agg_mode values (verl/trainer/ppo/core_algos.py agg_loss). */
export const lossAggModes = ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum"] as const;
export type LossAgg = (typeof lossAggModes)[number];
/** verl's KL estimators (core_algos.py kl_penalty): k1, k2 and low_var_kl (k3, clamped). */
export const klTypes = ["k1", "k2", "low_var_kl"] as const;
export type KlType = (typeof klTypes)[number];

const trainSampling = { temperature: 1.0, topP: 1.0, maxTokens: 8000 };
const evalSampling = { temperature: 0.6, topP: 0.95, maxTokens: 8000 };

export const runConfigSchema = z
  .object({
    schemaVersion: z.literal(RUN_CONFIG_SCHEMA_VERSION).default(RUN_CONFIG_SCHEMA_VERSION),
    kind: z.enum(["train", "eval"]).default("train"),

    /** Policy and node: the model that acts and rehearses. */
    policy: policyModelSchema.default({}),

    data: z
      .object({
        /** "builtin:shop" | "tau2:retail" | "dataset:<id>" (an imported CM2 dataset). */
        dataset: z
          .string()
          .regex(/^(builtin:[a-z0-9_-]+|tau2:retail|dataset:[A-Za-z0-9_-]+)$/, "must be builtin:<name>, tau2:retail or dataset:<id>")
          .default("builtin:shop"),
        split: z.enum(["train", "test"]).default("train"),
        /** Explicit instance ids; empty = sample from the split. */
        instanceIds: z.array(z.string().min(1)).max(10_000).default([]),
        /**
         * Train on a fixed subset of this many tasks of the split (a seeded draw); each step samples
         * from it. Unset = the whole split. Small pools let a quick run revisit its tasks.
         */
        poolSize: z.number().int().min(1).max(1_000_000).optional(),
        instancesPerStep: z.number().int().min(1).max(4096).default(16),
        rolloutsPerInstance: z.number().int().min(1).max(64).default(4),
        seed: z.number().int().min(0).default(0),
      })
      .default({}),

    rollout: z
      .object({
        paradigm: z.enum(paradigms).default("rehearse"),
        /** Also execute each rehearsed call for real (without conditioning on it) and record fidelity. */
        shadowExecution: z.boolean().default(false),
        /** The external tool simulator for the `simulator` paradigm. */
        simulator: nodeModelSchema.optional(),
        /** The user simulator for environments with simulated users (tau2). */
        userSimulator: nodeModelSchema.optional(),
        maxAssistantTurns: z.number().int().min(1).max(1000).default(30),
        maxUserTurns: z.number().int().min(1).max(1000).default(30),
        maxMicroSteps: z.number().int().min(1).max(10_000).default(200),
        promptBudgetTokens: z.number().int().min(16).max(1_000_000).default(12_000),
        responseBudgetTokens: z.number().int().min(1).max(1_000_000).default(8_000),
        maxConcurrentRollouts: z.number().int().min(1).max(4096).default(256),
        maxFailedGenerationShare: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .describe("Fail the run when a step's share of failed generations exceeds this (a step where all failed always fails)"),
      })
      .default({}),

    sampling: z
      .object({
        act: samplingSchema.default(trainSampling),
        rehearse: samplingSchema.default(trainSampling),
        evalAct: samplingSchema.default(evalSampling),
        evalRehearse: samplingSchema.default(evalSampling),
      })
      .default({}),

    reward: z
      .object({
        /** LLM checklist judge; unused for programmatic checklists. */
        judge: nodeModelSchema.optional(),
        judgeConcurrency: z.number().int().min(1).max(10_000).default(500),
        judgeTimeoutS: z.number().min(1).max(3600).default(120),
        judgeRetries: z.number().int().min(1).max(20).default(5),
        judgeTemperature: z.number().min(0).max(2).default(0.6),
        judgeTopP: z.number().gt(0).max(1).default(0.8),
        judgeMaxTokens: z.number().int().min(1).max(100_000).default(6000),
        invalidActionPenalty: z.number().min(0).max(10).default(0.1),
        maxChecklists: z.number().int().min(1).max(16).default(1),
        /**
         * Grounded rehearsal (not in the reference method; 0 = off, the method as published): with shadow
         * execution, each rehearse row's reward is (1 − w) · trajectory reward + w · its fidelity to the real response.
         */
        rehearsalGrounding: z.number().min(0).max(1).default(0),
      })
      .default({}),

    optim: z
      .object({
        lr: z.number().gt(0).max(1).default(1e-6).describe("Learning rate of the AdamW update (the reference: 1e-6, full fine-tuning)"),
        roleWiseBaseline: z.boolean().default(true).describe("GRPO baseline per (prompt group, role) instead of per prompt group"),
        normAdvByStd: z.boolean().default(false).describe("Divide advantages by the group's standard deviation (the reference: off, mean-only)"),
        clipLow: z.number().min(0).max(1).default(0.2).describe("PPO clip ε below 1: the ratio is clipped at 1 − clipLow"),
        clipHigh: z.number().min(0).max(10).default(0.2).describe("PPO clip ε above 1: the ratio is clipped at 1 + clipHigh"),
        dualClip: z
          .number()
          .gt(1)
          .max(100)
          .default(3.0)
          .describe("Dual-clip bound c for negative advantages: the per-token loss is capped at −c·A (verl clip_ratio_c)"),
        useKl: z.boolean().default(false).describe("Add the KL penalty to the frozen base model to the loss (the reference: off)"),
        klCoef: z.number().min(0).max(10).default(1e-4).describe("Coefficient of the KL penalty (used only with useKl)"),
        klType: z
          .enum(klTypes)
          .default("low_var_kl")
          .describe("KL estimator (used only with useKl): k1 = logp − ref, k2 = ½(logp − ref)², low_var_kl = k3 clamped to [−10, 10] as in verl"),
        entropyCoef: z.number().min(0).max(10).default(0).describe("Entropy bonus: entropyCoef × aggregated entropy is subtracted from the loss (the reference: 0)"),
        lossAgg: z
          .enum(lossAggModes)
          .default("seq-mean-token-mean")
          .describe(
            "How per-token losses become the step's loss (verl loss_agg_mode). The reference trains one row per micro-batch and divides by the accumulation steps, so every row weighs the same: seq-mean-token-mean",
          ),
        recomputeLogprobs: z
          .boolean()
          .default(false)
          .describe("Take the PPO ratio against log-probs the trainer recomputes in a forward pass before the update (the reference's behaviour; one extra forward pass) instead of the sampler's"),
        weightDecay: z.number().min(0).max(1).default(0.01).describe("AdamW decoupled weight decay"),
        gradClip: z.number().gt(0).max(1000).default(1.0).describe("Clip the global gradient norm to this value"),
        beta1: z.number().min(0).lt(1).default(0.9).describe("AdamW β1"),
        beta2: z.number().min(0).lt(1).default(0.999).describe("AdamW β2"),
      })
      .default({}),

    schedule: z
      .object({
        steps: z.number().int().min(1).max(1_000_000).default(470),
        saveEvery: z.number().int().min(1).max(1_000_000).default(50),
        evalEvery: z.number().int().min(1).max(1_000_000).default(10),
      })
      .default({}),

    /** Test-time rehearsal (evaluation runs): N private attempts condensed into a memory before one real execution. */
    testTime: z
      .object({
        enabled: z.boolean().default(false),
        attempts: z.number().int().min(1).max(64).default(4),
        mode: z.enum(["parallel", "sequential"]).default("parallel"),
      })
      .default({}),

    /** tau2-style evaluation: trials per task for pass^k. */
    trialsPerTask: z.number().int().min(1).max(64).default(1),
    /** Rehearsal-fidelity probe in evaluation runs: ask the rehearse role before each real call. */
    fidelityProbe: z.boolean().default(false),
  })
  .superRefine((cfg, ctx) => {
    if (cfg.rollout.paradigm === "simulator" && !cfg.rollout.simulator) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["rollout", "simulator"],
        message: "the simulator paradigm needs a simulator node and model",
      });
    }
    if (cfg.rollout.shadowExecution && cfg.rollout.paradigm !== "rehearse") {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["rollout", "shadowExecution"],
        message: "shadow execution only applies to the rehearse paradigm",
      });
    }
    if (cfg.reward.rehearsalGrounding > 0 && !cfg.rollout.shadowExecution) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["reward", "rehearsalGrounding"],
        message: "grounded rehearsal compares each rehearsal with the real response: it needs rollout.shadowExecution",
      });
    }
    if (cfg.reward.rehearsalGrounding > 0 && !cfg.optim.roleWiseBaseline) {
      // Without per-role groups a trajectory's row scores are averaged into one advantage for both
      // roles, so the rehearse role's fidelity would leak into the act role's advantage.
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["reward", "rehearsalGrounding"],
        message: "grounded rehearsal rewards the rehearse role alone: it needs optim.roleWiseBaseline",
      });
    }
    if (cfg.data.dataset === "tau2:retail" && !cfg.rollout.userSimulator) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["rollout", "userSimulator"],
        message: "tau2 retail tasks need a user-simulator node and model",
      });
    }
    if (cfg.optim.clipLow >= 1) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["optim", "clipLow"], message: "must be below 1" });
    }
  });

export type RunConfig = z.infer<typeof runConfigSchema>;
export type RunConfigInput = z.input<typeof runConfigSchema>;

/** Parse and return either the config or a list of `path: message` errors naming each bad field. */
export function parseRunConfig(input: unknown):
  | { ok: true; config: RunConfig }
  | { ok: false; errors: { path: string; message: string }[] } {
  const result = runConfigSchema.safeParse(input ?? {});
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
  };
}

/** The quickstart preset: embedded CPU node, built-in shop domain, world rehearsal with shadow execution. */
export const quickstartPreset: RunConfigInput = {
  kind: "train",
  policy: { node: "embedded", model: "tiny-gpt" },
  // A fixed pool of 8 tasks, each revisited every step: the tiny model learns visibly in 40 steps on
  // 2 CPU cores (on the whole split it does not yet; docs/BENCHMARKS.md). Unset poolSize for real runs.
  data: { dataset: "builtin:shop", split: "train", poolSize: 8, instancesPerStep: 8, rolloutsPerInstance: 4 },
  rollout: {
    paradigm: "rehearse",
    shadowExecution: true,
    maxAssistantTurns: 4,
    maxUserTurns: 2,
    maxMicroSteps: 16,
    promptBudgetTokens: 1024,
    responseBudgetTokens: 192,
    maxConcurrentRollouts: 32,
  },
  sampling: {
    act: { temperature: 1.0, topP: 1.0, maxTokens: 192 },
    rehearse: { temperature: 1.0, topP: 1.0, maxTokens: 192 },
    evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 192 },
    evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 192 },
  },
  // Grounded rehearsal (not in the reference method): the rehearse role is rewarded by its fidelity to
  // the real response under shadow execution, the act role by the task reward. With the task reward
  // alone the rehearse role's fidelity did not rise reliably on 2 CPU cores; grounded, it does, and it
  // replaces the KL anchor that kept the rehearse role from drifting (docs/BENCHMARKS.md). lr 6e-4 and
  // above degrade the tiny model.
  reward: { rehearsalGrounding: 1 },
  optim: { lr: 3e-4 },
  schedule: { steps: 40, saveEvery: 10, evalEvery: 10 },
};

/**
 * Paper reference: Qwen3-8B on a Tinker node, judge Qwen3-30B-A3B on an OpenAI-compatible node.
 * LoRA values: rank 32 (the SDK default; SkyRL JAX's default limit) and lr 1e-5 — the paper's
 * full-fine-tuning lr 1e-6 times the LoRA factor 10 of tinker-cookbook's hyperparam_utils
 * (get_lora_lr_over_full_finetune_lr, after "LoRA Without Regret"), which is also the cookbook's
 * default for its LoRA RL recipes (tinker_cookbook/recipes/{math_rl,code_rl,harbor_rl}/train.py).
 */
export const paperReferencePreset: RunConfigInput = {
  kind: "train",
  policy: { node: "tinker", model: "Qwen/Qwen3-8B", loraRank: 32 },
  data: { dataset: "dataset:cm2", split: "train", instancesPerStep: 16, rolloutsPerInstance: 4 },
  rollout: { paradigm: "rehearse" },
  reward: { judge: { node: "judge", model: "Qwen/Qwen3-30B-A3B" } },
  optim: { lr: 1e-5 },
  schedule: { steps: 470, saveEvery: 50, evalEvery: 10 },
};

export const presets = {
  quickstart: { label: "Quickstart (embedded CPU node)", config: quickstartPreset },
  paper: { label: "Paper reference (Qwen3-8B on Tinker, judge Qwen3-30B-A3B)", config: paperReferencePreset },
  simulatorBaseline: {
    label: "Baseline: external tool simulator (caller only)",
    config: {
      ...quickstartPreset,
      rollout: { ...quickstartPreset.rollout, paradigm: "simulator", shadowExecution: false, simulator: { node: "embedded", model: "tiny-gpt" } },
      reward: { ...quickstartPreset.reward, rehearsalGrounding: 0 },
    } satisfies RunConfigInput,
  },
  environmentBaseline: {
    label: "Baseline: real environment (classic agentic RL)",
    config: {
      ...quickstartPreset,
      rollout: { ...quickstartPreset.rollout, paradigm: "environment", shadowExecution: false },
      reward: { ...quickstartPreset.reward, rehearsalGrounding: 0 },
    } satisfies RunConfigInput,
  },
} as const;
export type PresetKey = keyof typeof presets;
