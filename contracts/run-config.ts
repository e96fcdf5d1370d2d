/**
 * The run configuration: ONE zod schema shared by the API, the UI form and the worker.
 * Defaults follow the EnvACE reference launch scripts (shared docs envace-method.md §5,
 * design-brief §4). Every field has a default so `{}` parses to the reference config.
 */
import { z } from "zod";
import { BFCL_DATASET_PREFIX, bfclConfigProblem } from "../lib/bfcl/categories";
import { tau2DomainsOf, tau2UserHasTools } from "../lib/tau2/datasets";
import { parseVitaDataset, VITA_DATASET_PREFIX } from "../lib/vitabench/datasets";

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
  /^(builtin:[a-z0-9_-]+|tau2:(retail|airline|telecom|all)|bfcl:[a-z_]+(,[a-z_]+)*|vitabench:[a-z_]+(\/[a-z]+)?|dataset:[A-Za-z0-9_-]+|mcp:[a-z0-9][a-z0-9_-]{0,62}\/[A-Za-z0-9_-]{1,100})$/;
const DATASET_REF_MESSAGE = "must be builtin:<name>, tau2:retail|airline|telecom|all, bfcl:<category or group>[,…], vitabench:<domain>[/<lang>], dataset:<id> or mcp:<server>/<dataset>";

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

const trainSampling = { temperature: 1.0, topP: 1.0, maxTokens: 8000 };
const evalSampling = { temperature: 0.6, topP: 0.95, maxTokens: 8000 };

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

export const runConfigSchema = z
  .object({
    schemaVersion: z.literal(RUN_CONFIG_SCHEMA_VERSION).default(RUN_CONFIG_SCHEMA_VERSION),
    kind: z.enum(["train", "eval"]).default("train").describe("train: GRPO training steps with periodic evaluation; eval: one evaluation of the policy"),

    /** Policy and node: the model that acts and rehearses. */
    policy: policyModelSchema.default({}).describe("The policy that acts and rehearses"),

    data: z
      .object({
        /**
         * "builtin:shop" | "tau2:retail|airline|telecom|all" | "bfcl:<categories or groups>" | "vitabench:<domain>[/<lang>]" |
         * "dataset:<id>" (an imported dataset) | "mcp:<server>/<dataset>" (an imported dataset's tasks against a
         * registered MCP server).
         */
        dataset: z
          .string()
          .regex(DATASET_REF, DATASET_REF_MESSAGE)
          .default("builtin:shop")
          .describe(
            "Where the tasks come from: builtin:<name> (e.g. builtin:shop), tau2:retail, tau2:airline or tau2:telecom (τ²-bench v0.2.0; tau2:all runs the three, task ids then written tau2:<domain>/<id>), bfcl:<categories or groups> (BFCL v4, e.g. bfcl:multi_turn,simple_python), vitabench:<delivery|instore|ota|cross>[/<zh|en>] (VitaBench; zh unless /en, as upstream's default), dataset:<id or name> of an imported dataset, or mcp:<server>/<dataset> to run an imported dataset's tasks against a registered MCP server",
          ),
        split: z.enum(["train", "test"]).default("train").describe("Which split of the dataset to draw tasks from"),
        /** Explicit instance ids; empty = sample from the split. */
        instanceIds: z.array(z.string().min(1)).max(10_000).default([]).describe("Use exactly these task ids (empty = sample from the split)"),
        /**
         * Train on a fixed subset of this many tasks of the split (a seeded draw); each step samples
         * from it. Unset = the whole split. Small pools let a quick run revisit its tasks.
         */
        poolSize: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .optional()
          .describe("Train on a fixed seeded subset of this many tasks (unset = the whole split)"),
        instancesPerStep: z.number().int().min(1).max(4096).default(16).describe("Tasks per training step (and per evaluation)"),
        rolloutsPerInstance: z.number().int().min(1).max(64).default(4).describe("Rollouts per task in a step: the GRPO group size"),
        seed: z.number().int().min(0).default(0).describe("Seed of task sampling; a step's tasks are a pure function of (seed, step)"),
      })
      .default({}),

    rollout: z
      .object({
        paradigm: z
          .enum(paradigms)
          .default("rehearse")
          .describe("rehearse: the policy writes each tool response itself (EnvACE); simulator: an external model does; environment: the real tools run"),
        /** Also execute each rehearsed call for real (without conditioning on it) and record fidelity. */
        shadowExecution: z.boolean().default(false).describe("Also run each rehearsed call for real, unseen by the policy, and record the rehearsal's fidelity"),
        /** The external tool simulator for the `simulator` paradigm. */
        simulator: nodeModelSchema.optional().describe("External tool simulator (simulator paradigm only)"),
        /** The user simulator for environments with simulated users (tau2, VitaBench). */
        userSimulator: nodeModelSchema.optional().describe("User simulator for tasks with a simulated user (tau2, VitaBench; tau2:telecom and tau2:all need one that calls tools, as the node doctor checks)"),
        maxAssistantTurns: z.number().int().min(1).max(1000).default(30).describe("End a rollout after this many assistant turns"),
        maxUserTurns: z.number().int().min(1).max(1000).default(30).describe("End a rollout after this many user turns"),
        maxMicroSteps: z.number().int().min(1).max(10_000).default(200).describe("End a rollout after this many generations and tool calls in all (a guard against loops)"),
        promptBudgetTokens: z
          .number()
          .int()
          .min(16)
          .max(1_000_000)
          .default(12_000)
          .describe("End a rollout (LENGTH_EXCEEDED) when the next act prompt would reach this many tokens"),
        responseBudgetTokens: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .default(8_000)
          .describe(
            "Most tokens of a tool response a model writes: caps every rehearse generation (below sampling's rehearse maxTokens; the fidelity probe's too) and every external simulator reply. A generation of either role that reaches it counts as clipped in response_length/clip_ratio. Test-time private attempts use testTime.sampling.rehearse",
          ),
        maxConcurrentRollouts: z.number().int().min(1).max(4096).default(256).describe("Rollouts in flight at once (bounds the load on the nodes)"),
        maxFailedGenerationShare: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .describe("Fail the run when a step's share of failed generations exceeds this (a step where all failed always fails)"),
        maxEnvironmentErrorShare: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .describe(
            "Fail the run when more than this share of a step's episodes errored — could not run for reasons outside the policy: the environment (a tool server that did not start, crashed, hung or broke its protocol), the user simulator, the judge, the tool simulator or the policy node failed, or a prompt did not fit the model's context. Errored episodes are recorded with their cause and left out of scores and training; a step where every episode errored always fails (the key keeps its first name: environment errors were the first cause it counted)",
          ),
      })
      .default({}),

    sampling: z
      .object({
        act: samplingSchema.default(trainSampling).describe("Act role (tool calls and replies) in training rollouts"),
        rehearse: samplingSchema.default(trainSampling).describe("Rehearse role (predicted tool responses) in training rollouts"),
        evalAct: samplingSchema.default(evalSampling).describe("Act role in evaluation"),
        evalRehearse: samplingSchema.default(evalSampling).describe("Rehearse role in evaluation"),
      })
      .default({}),

    reward: z
      .object({
        /** LLM checklist judge; unused for programmatic checklists. */
        judge: nodeModelSchema.optional().describe(
          "LLM that judges checklist items (needed for imported datasets; built-in tasks check programmatically) and VitaBench's rubrics (results depend on the judge: upstream's default is an API model)",
        ),
        judgeConcurrency: z.number().int().min(1).max(10_000).default(500).describe("Judge calls in flight at once"),
        judgeTimeoutS: z.number().min(1).max(3600).default(120).describe("Time limit of one judge (or tool-simulator) call"),
        judgeRetries: z.number().int().min(1).max(20).default(5).describe("Attempts per judge call before the verdict counts as failed"),
        judgeTemperature: z.number().min(0).max(2).default(0.6).describe("Sampling temperature of the judge"),
        judgeTopP: z.number().gt(0).max(1).default(0.8).describe("Nucleus sampling of the judge"),
        judgeMaxTokens: z.number().int().min(1).max(100_000).default(6000).describe("Most tokens of one judge reply"),
        invalidActionPenalty: z
          .number()
          .min(0)
          .max(10)
          .default(0.1)
          .describe(
            "Subtracted from the training score of a generation whose output is empty (blank after trimming; either role), as the reference's invalid-action penalty. Output that does not parse is not penalised here: its error ends the episode",
          ),
        maxChecklists: z.number().int().min(1).max(16).default(1).describe("Checklists judged per task (a task may carry several)"),
        /**
         * Grounded rehearsal (not in the reference method; 0 = off, the method as published): with shadow
         * execution, each rehearse row's reward is (1 − w) · trajectory reward + w · its fidelity to the real response.
         */
        rehearsalGrounding: z
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe("Weight w of a rehearsal's own fidelity in its reward: (1 − w)·task reward + w·fidelity (needs shadow execution; 0 = the method as published)"),
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
        steps: z.number().int().min(1).max(1_000_000).default(470).describe("Training steps in all (the paper: 470)"),
        saveEvery: z.number().int().min(1).max(1_000_000).default(50).describe("Save a checkpoint every this many steps (and at the end)"),
        evalEvery: z.number().int().min(1).max(1_000_000).default(10).describe("Evaluate every this many steps (and at the end)"),
        evalOwnSplit: z
          .boolean()
          .default(true)
          .describe("Evaluate on the training dataset's own evaluation split every evalEvery steps (off: only the evaluation suites)"),
        evalSuites: z
          .array(evalSuiteSchema)
          .max(MAX_EVAL_SUITES)
          .default([])
          .describe("Other benchmarks to evaluate the current policy on every evalEvery steps and at the end, each in its own environment (charts val/<name>/…)"),
      })
      .default({}),

    /**
     * Test-time rehearsal (evaluation runs; paper §4.3, our own design: worker/engine/DIFFERENCES.md): N private
     * attempts in the policy's own rehearsed world, each assessed by the policy, condensed into a memory that
     * conditions ONE committed execution. Private attempts contact nothing external.
     */
    testTime: z
      .object({
        enabled: z
          .boolean()
          .default(false)
          .describe("Before each real execution in an evaluation, rehearse the task privately N times and condense the attempts into a memory"),
        attempts: z.number().int().min(1).max(64).default(4).describe("Private rehearsal attempts per task (N)"),
        mode: z
          .enum(testTimeModes)
          .default("parallel")
          .describe("parallel: N independent attempts; sequential: attempt n sees every earlier attempt and its assessment"),
        sampling: z
          .object({
            act: samplingSchema.default(testTimeSampling.act).describe("The act role in private attempts and in the committed execution (paper: temperature 1.0, top-p 1.0)"),
            rehearse: samplingSchema
              .default(testTimeSampling.rehearse)
              .describe("The rehearse role in private attempts: imagined tool responses and imagined user turns (paper: 1.0 / 1.0)"),
            assessment: samplingSchema
              .default(testTimeSampling.assessment)
              .describe("The policy's assessment and suggestion after each private attempt (paper: temperature 0.01)"),
            memory: samplingSchema
              .default(testTimeSampling.memory)
              .describe("The summary of all attempts and assessments into the rehearsal memory; maxTokens bounds the memory (paper: temperature 0.01)"),
          })
          .default({})
          .describe("Sampling per test-time phase (used only with testTime.enabled)"),
        transcriptTokens: z
          .number()
          .int()
          .min(32)
          .max(200_000)
          .default(2048)
          .describe("Token bound (policy's tokenizer) of the attempt transcripts one assessment or memory prompt receives; actions are never cut"),
        thinkingTokens: z
          .number()
          .int()
          .min(0)
          .max(100_000)
          .default(0)
          .describe("Thinking kept per assistant message in condensed transcripts, in tokens (0 = thinking stripped)"),
      })
      .default({}),

    /** tau2-style evaluation: trials per task for pass^k. */
    trialsPerTask: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(1)
      .describe("Rollouts of each task within one evaluation pass: pass^k (τ²) and pass@k are computed over them"),
    /** Independent evaluation passes (the paper's Avg@4 over four runs): each pass is committed as its own eval step. */
    repeats: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(1)
      .describe("Independent passes of an evaluation, each with its own sampling seed and committed on its own; reports give Avg@k as the mean over the passes, with their spread"),
    /** Rehearsal-fidelity probe in evaluation runs: ask the rehearse role before each real call. */
    fidelityProbe: z.boolean().default(false).describe("In environment-paradigm evaluations, ask the rehearse role for each tool response before the real call and score its fidelity"),
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
    const tau2 = tau2DomainsOf(cfg.data.dataset);
    if (tau2 && !cfg.rollout.userSimulator) {
      const what = tau2.length > 1 ? "tau2 tasks" : `tau2 ${tau2[0]} tasks`;
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["rollout", "userSimulator"],
        message: `${what} need a user-simulator node and model${tau2.some(tau2UserHasTools) ? " (one that calls tools: the telecom user acts on its phone)" : ""}`,
      });
    }
    if (cfg.data.dataset.startsWith(BUILTIN_DATASET_PREFIX)) {
      const name = cfg.data.dataset.slice(BUILTIN_DATASET_PREFIX.length);
      if (!(builtinDomainNames as readonly string[]).includes(name)) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ["data", "dataset"],
          message: `unknown built-in domain "${name}" (built in: ${builtinDomainNames.map((n) => BUILTIN_DATASET_PREFIX + n).join(", ")})`,
        });
      }
    }
    if (cfg.data.dataset.startsWith(BFCL_DATASET_PREFIX)) {
      const problem = bfclConfigProblem(cfg.data.dataset, cfg.kind);
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["data", "dataset"], message: problem });
    }
    for (const issue of evalSuiteIssues(cfg)) ctx.addIssue({ code: z.ZodIssueCode.custom, ...issue });
    if (cfg.policy.checkpoint && cfg.kind !== "eval") {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ["policy", "checkpoint"],
        message: "a training run starts from the base model; evaluate a checkpoint with kind eval",
      });
    }
    if (cfg.repeats > 1 && cfg.kind !== "eval") {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["repeats"], message: "repeats are independent passes of an evaluation run (kind eval)" });
    }
    if (cfg.data.dataset.startsWith(VITA_DATASET_PREFIX)) {
      const parsed = parseVitaDataset(cfg.data.dataset);
      if (!parsed.ok) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["data", "dataset"], message: parsed.message });
      if (!cfg.rollout.userSimulator) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["rollout", "userSimulator"], message: "VitaBench tasks need a user-simulator node and model" });
      }
      if (!cfg.reward.judge) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["reward", "judge"], message: "VitaBench is scored by an LLM judge: set a judge node and model" });
      }
    }
    if (cfg.optim.clipLow >= 1) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["optim", "clipLow"], message: "must be below 1" });
    }
  });

/** The schema's own checks of schedule.evalSuites (pure); the launch check adds what needs data or nodes. */
function evalSuiteIssues(cfg: {
  kind: string;
  data: { dataset: string };
  schedule: { evalOwnSplit: boolean; evalSuites: EvalSuite[] };
  rollout: { paradigm: Paradigm; simulator?: NodeModel; userSimulator?: NodeModel };
}): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const suites = cfg.schedule.evalSuites;
  if (cfg.kind === "eval" && suites.length > 0) {
    issues.push({ path: ["schedule", "evalSuites"], message: "evaluation suites belong to training runs; an evaluation run evaluates data.dataset (launch one per benchmark)" });
    return issues;
  }
  if (!cfg.schedule.evalOwnSplit && suites.length === 0) {
    issues.push({ path: ["schedule", "evalOwnSplit"], message: "a training run that skips its dataset's evaluation needs at least one evaluation suite (schedule.evalSuites)" });
  }
  const seen = new Map<string, number>();
  suites.forEach((suite, i) => {
    const at = (...field: string[]) => ["schedule", "evalSuites", i, ...field];
    const first = seen.get(suite.name);
    if (first !== undefined) issues.push({ path: at("name"), message: `suite name "${suite.name}" is already used by suite ${first}` });
    else seen.set(suite.name, i);
    // The run's own BFCL or τ² evaluation charts val/bfcl/… or val/tau2/…: a suite may not share it.
    const own = /^(tau2|bfcl):/.exec(cfg.data.dataset)?.[1];
    if (own && suite.name === own && cfg.schedule.evalOwnSplit) issues.push({ path: at("name"), message: `the run's own evaluation charts val/${own}/…: choose another suite name` });
    if (suite.instanceIds.length > 0 && suite.limit !== undefined) issues.push({ path: at("limit"), message: "give instanceIds or limit, not both" });
    if (suite.instanceIds.length === 0 && suite.limit === undefined) {
      issues.push({ path: at("instanceIds"), message: "name the suite's tasks: instanceIds, or limit (a seeded sample of that many tasks of the split)" });
    }
    if (suite.dataset.startsWith(BUILTIN_DATASET_PREFIX)) {
      const name = suite.dataset.slice(BUILTIN_DATASET_PREFIX.length);
      if (!(builtinDomainNames as readonly string[]).includes(name)) {
        issues.push({ path: at("dataset"), message: `unknown built-in domain "${name}" (built in: ${builtinDomainNames.map((n) => BUILTIN_DATASET_PREFIX + n).join(", ")})` });
      }
    }
    if (suite.dataset.startsWith(BFCL_DATASET_PREFIX)) {
      const problem = bfclConfigProblem(suite.dataset, "eval");
      if (problem) issues.push({ path: at("dataset"), message: problem });
    }
    if (suite.dataset === "tau2:retail" && !suite.userSimulator && !cfg.rollout.userSimulator) {
      issues.push({ path: at("userSimulator"), message: "tau2 retail tasks need a user-simulator node and model (here or in rollout.userSimulator)" });
    }
    if (suite.paradigm === "simulator" && !cfg.rollout.simulator) {
      issues.push({ path: at("paradigm"), message: "the simulator paradigm needs rollout.simulator (a simulator node and model)" });
    }
  });
  return issues;
}

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
  // replaces the KL anchor that kept the rehearse role from drifting (docs/BENCHMARKS.md). With the
  // warm start of 2026-12-01 (closer to the gold outputs) lr 3e-4 lowered the reward over 12 steps and
  // 1e-4 raised it slowly; 1.5e-4 raises reward and fidelity over the preset's 40 steps.
  reward: { rehearsalGrounding: 1 },
  optim: { lr: 1.5e-4 },
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

/**
 * BFCL v4 evaluation on the embedded node: the multi-turn categories against the real back ends. Up to 20
 * steps per user turn upstream, so the per-episode caps leave room for them; pick categories and a subset of
 * tasks (data.instanceIds) in the form.
 */
export const bfclEvalPreset: RunConfigInput = {
  kind: "eval",
  policy: { node: "embedded", model: "tiny-gpt" },
  data: { dataset: "bfcl:multi_turn" },
  trialsPerTask: 1,
  rollout: { paradigm: "environment", maxAssistantTurns: 120, maxUserTurns: 30, maxMicroSteps: 500, promptBudgetTokens: 32_000, maxConcurrentRollouts: 16 },
  sampling: { evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 256 }, evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 256 } },
};

/**
 * VitaBench evaluation (delivery, English tasks): upstream's episode runs up to 300 steps, so the per-episode caps
 * leave room for them; the policy, the user simulator and the judge are models on OpenAI-compatible nodes (the
 * prompts — 20+ tool schemas, the persona — exceed the embedded node's context). Upstream samples all three at 0.0.
 */
export const vitabenchEvalPreset: RunConfigInput = {
  kind: "eval",
  policy: { node: "vllm", model: "Qwen/Qwen3-8B" },
  data: { dataset: "vitabench:delivery/en" },
  trialsPerTask: 4,
  rollout: {
    paradigm: "environment",
    userSimulator: { node: "vllm", model: "Qwen/Qwen3-8B" },
    maxAssistantTurns: 300,
    maxUserTurns: 300,
    maxMicroSteps: 2000,
    promptBudgetTokens: 131_072,
    maxConcurrentRollouts: 16,
  },
  reward: { judge: { node: "judge", model: "Qwen/Qwen3-30B-A3B" } },
  sampling: { evalAct: { temperature: 0, topP: 1, maxTokens: 8192 }, evalRehearse: { temperature: 0, topP: 1, maxTokens: 8192 } },
};

/**
 * Test-time rehearsal on the embedded node: an evaluation of the shop's test split where every task is
 * rehearsed privately four times in parallel before one real execution, with the paper's sampling per
 * phase (act and rehearse 1.0 / 1.0, assessment and memory 0.01) and lengths that fit the tiny model.
 */
export const testTimePreset: RunConfigInput = {
  kind: "eval",
  policy: { node: "embedded", model: "tiny-gpt" },
  data: { dataset: "builtin:shop", split: "test", instancesPerStep: 8, rolloutsPerInstance: 1 },
  rollout: { ...quickstartPreset.rollout, paradigm: "environment", shadowExecution: false },
  sampling: {
    ...quickstartPreset.sampling,
    // The "no rehearsal" arm of a comparison evaluates with the same act sampling as the committed execution.
    evalAct: { ...testTimeSampling.act, maxTokens: 192 },
    evalRehearse: { ...testTimeSampling.rehearse, maxTokens: 192 },
  },
  testTime: {
    enabled: true,
    attempts: 4,
    mode: "parallel",
    sampling: {
      act: { ...testTimeSampling.act, maxTokens: 192 },
      rehearse: { ...testTimeSampling.rehearse, maxTokens: 192 },
      assessment: { ...testTimeSampling.assessment, maxTokens: 96 },
      memory: { ...testTimeSampling.memory, maxTokens: 128 },
    },
    transcriptTokens: 384,
    thinkingTokens: 0,
  },
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
  bfclEval: { label: "BFCL v4 evaluation (choose categories)", config: bfclEvalPreset },
  vitabenchEval: { label: "VitaBench evaluation (choose domain and language; judge and user simulator on OpenAI-compatible nodes)", config: vitabenchEvalPreset },
  environmentBaseline: {
    label: "Baseline: real environment (classic agentic RL)",
    config: {
      ...quickstartPreset,
      rollout: { ...quickstartPreset.rollout, paradigm: "environment", shadowExecution: false },
      reward: { ...quickstartPreset.reward, rehearsalGrounding: 0 },
    } satisfies RunConfigInput,
  },
  testTime: { label: "Test-time rehearsal (evaluation, paper's phase sampling)", config: testTimePreset },
} as const;
export type PresetKey = keyof typeof presets;
