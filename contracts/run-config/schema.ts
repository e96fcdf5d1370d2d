/**
 * The run configuration: ONE zod schema shared by the API, the UI form and the worker.
 * Defaults follow the EnvACE reference launch scripts (shared docs envace-method.md §5,
 * design-brief §4). Every field has a default so `{}` parses to the reference config.
 * Its parts are ./parts.ts; the cross-field checks follow the object (superRefine).
 */
import { z } from "zod";
import { BFCL_DATASET_PREFIX, bfclConfigProblem } from "../../lib/bfcl/categories";
import { tau2DomainsOf, tau2UserHasTools } from "../../lib/tau2/datasets";
import { parseVitaDataset, VITA_DATASET_PREFIX } from "../../lib/vitabench/datasets";
import { RUN_CONFIG_SCHEMA_VERSION, paradigms, builtinDomainNames, BUILTIN_DATASET_PREFIX, type Paradigm, nodeModelSchema, type NodeModel, policyModelSchema, DATASET_REF, DATASET_REF_MESSAGE, MAX_EVAL_SUITES, evalSuiteSchema, type EvalSuite, samplingSchema, lossAggModes, klTypes, trainSampling, evalSampling, testTimeModes, testTimeSampling } from "./parts";
import { FINMCP_DATASET_PREFIX, FINMCP_DEFAULT_FOLDER, FINMCP_DEFAULT_SCHEMA, FINMCP_ENVIRONMENT, FINMCP_MAX_TOOL_CALLS, parseFinmcpDataset } from "../../lib/finmcp/datasets";
import { bfclResourcesOf } from "../../lib/bfcl/not-run";

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

    /**
     * Outside resources of BFCL's web-search and memory_vector categories (lib/bfcl/not-run.ts): without
     * them those categories are reported as not run. The launch check verifies the nodes.
     */
    bfcl: z
      .object({
        search: z
          .object({ node: z.string().min(1).describe("A registered node of kind search (a SerpAPI-compatible search API; its key is the node's API key)") })
          .strict()
          .optional()
          .describe("Search back end of BFCL's web_search categories (unset: they are not run)"),
        embeddings: nodeModelSchema
          .optional()
          .describe("Embedding node and model of BFCL's memory_vector (an OpenAI-compatible /v1/embeddings, e.g. vLLM serving sentence-transformers/all-MiniLM-L6-v2, upstream's model; unset: not run)"),
      })
      .strict()
      .optional()
      .describe("Outside resources of BFCL's web search and vector memory (bfcl: datasets only)"),

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
        stateEvery: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .default(1)
          .describe(
            "Save the full training state (weights + optimiser) every this many steps, and at every checkpoint and the last step; a resumed run replays the steps after its last saved state (at most stateEvery − 1)",
          ),
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
     * Test-time rehearsal (evaluation runs; paper §4.3, our own design: docs/ARCHITECTURE.md, *Deliberate differences from the reference*): N private
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

    /** FinMCP-Bench (finmcp:<file>): what answers the tools, where the data is, upstream's bound on calls. */
    finmcp: z
      .object({
        environment: z
          .string()
          .regex(FINMCP_ENVIRONMENT, "replay or mcp:<server> (a registered MCP server)")
          .optional()
          .describe(
            "What answers FinMCP-Bench's tool calls: mcp:<server> (a registered MCP server — upstream's protocol; its tool schemas come with the server) or replay (each call answered with the recorded output of the matching gold call, labelled as a replay wherever its numbers appear)",
          ),
        folder: z
          .string()
          .regex(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$/, "a folder name inside the data directory")
          .default(FINMCP_DEFAULT_FOLDER)
          .describe("Folder of $ENVACE_DATA_DIR holding the sample files (the user supplies upstream's files; finmcp-synthetic holds the synthetic stand-ins)"),
        toolSchema: z
          .string()
          .regex(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$/, "a file name inside the FinMCP folder")
          .default(FINMCP_DEFAULT_SCHEMA)
          .describe("The OpenAI tools file sent with every request in replay mode (upstream's MCP_SCHEMA file; an MCP server gives its own)"),
        maxToolCalls: z
          .number()
          .int()
          .min(1)
          .max(1000)
          .default(FINMCP_MAX_TOOL_CALLS)
          .describe("Upstream's max_tool_num: a new round of calls starts only while the calls run in the turn are at most this many"),
        mcpAttempts: z.number().int().min(1).max(100).default(30).describe("Attempts per MCP tool call before it answers [error] (upstream's mcp_max_retries)"),
        mcpCallTimeoutS: z.number().min(1).max(600).default(10).describe("Time limit of one MCP tool call attempt (upstream's per-call timeout)"),
      })
      .default({})
      .describe("FinMCP-Bench runs (data.dataset finmcp:<file>)"),

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
      const problem = bfclConfigProblem(cfg.data.dataset, cfg.kind, bfclResourcesOf(cfg.bfcl));
      if (problem) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["data", "dataset"], message: problem });
    }
    if (cfg.bfcl && (cfg.bfcl.search || cfg.bfcl.embeddings) && !cfg.data.dataset.startsWith(BFCL_DATASET_PREFIX) && !cfg.schedule.evalSuites.some((s) => s.dataset.startsWith(BFCL_DATASET_PREFIX))) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["bfcl"], message: "bfcl.search and bfcl.embeddings are for BFCL datasets (bfcl:…); this run names none" });
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
    if (cfg.data.dataset.startsWith(FINMCP_DATASET_PREFIX)) {
      const parsed = parseFinmcpDataset(cfg.data.dataset);
      if (!parsed.ok) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["data", "dataset"], message: parsed.message });
      if (cfg.kind !== "eval") ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["kind"], message: "FinMCP-Bench is an evaluation benchmark: launch it with kind eval" });
      if (!cfg.finmcp.environment) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ["finmcp", "environment"],
          message: "choose what answers the tools: mcp:<server> (a registered MCP server, upstream's protocol) or replay (the recorded gold outputs)",
        });
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
  bfcl?: { search?: unknown; embeddings?: unknown };
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
      const problem = bfclConfigProblem(suite.dataset, "eval", bfclResourcesOf(cfg.bfcl));
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
