/**
 * One training step as a short linear function (sample → score → advantages → forward_backward →
 * optim_step → publish weights), an evaluation pass, and their shared result type. Pure apart from
 * the injected clients; the caller persists the returned StepResult in one transaction.
 */
import type { Paradigm, RunConfig } from "../../contracts/run-config";
import type { ChatClient, ChatMessage, LossConfig, OptimConfig, PolicyClient, Role, SamplingOptions, TrainerClient } from "./io";
import { summarizeFidelity, type FidelitySummary } from "./fidelity";
import { buildTrainingData, computeAdvantages, roleGroupId, type GenerationRow } from "./grpo";
import { ChecklistJudge, type ItemVerdict, groundedRehearseReward, judgeTurn, rowScore, type TurnJudgement } from "./reward";
import {
  expandJobs,
  type JudgeTurnHook,
  type RolloutDriverConfig,
  type RolloutOptions,
  type RolloutResult,
  runRollouts,
  type TurnRecord,
} from "./rollout";
import { runTestTimeRehearsal, type TestTimeOptions, type TestTimeRecord } from "./testtime";
import {
  assertEpisodesHealthy,
  assertGenerationsHealthy,
  assertTrainingData,
  episodeHealth,
  episodeHealthMetrics,
  generationHealth,
  generationHealthMetrics,
} from "./health";
import type { TaskInstance } from "./types";
import type { EpisodeError } from "./outcome";
import type { Outcome } from "../../lib/outcomes";

// ---------------------------------------------------------------------------------------------
// Result types
// ---------------------------------------------------------------------------------------------

export interface TurnResult extends TurnRecord {
  /** Row score (R minus the invalid-action penalty) and advantage, for act / rehearse generations. */
  score?: number;
  advantage?: number;
  /** `<instanceGroupId>:<role>` for generations. */
  advantageGroupId?: string;
}

export interface TrajectoryResult {
  instanceId: string;
  dataSource: string;
  /** Explicit group id shared by the K rollouts of one instance in this step. */
  groupId: string;
  rolloutIndex: number;
  rolloutId: string;
  paradigm: Paradigm;
  /** Normalised episode reward R = E / numChecklists / numChecklistTurns. */
  reward: number;
  /** Raw Σ of turn rewards (E). */
  episodeReward: number;
  /** The reference's `won` (E > 0): a training metric of its own, never success. */
  won: boolean;
  /** The benchmark's own verdict, or an infrastructure error with its cause (outcome.ts); scores count only episodes that ran. */
  outcome: Outcome;
  success: boolean;
  error?: EpisodeError;
  terminationReason: string;
  tokenCounts: { prompt: number; response: number; actResponse: number; rehearseResponse: number };
  assistantTurns: number;
  userTurns: number;
  microSteps: number;
  toolCalls: number;
  fidelity: FidelitySummary | null;
  turns: TurnResult[];
  verdicts: ItemVerdict[];
  judgements: Omit<TurnJudgement, "verdicts">[];
  /** The final conversation. */
  messages: ChatMessage[];
  wallMs: number;
  /** Test-time rehearsal record (evaluation with config.testTime.enabled). */
  testTime?: TestTimeRecord;
  /** The private attempts that preceded this (committed) execution, as trajectories of their own. */
  privateAttempts?: TrajectoryResult[];
}

export interface StepResult {
  kind: "train" | "eval";
  stepIndex: number;
  trajectories: TrajectoryResult[];
  /** Reference metric names where they exist (§8); `critic/<role>/…` per role. */
  metrics: Record<string, number>;
}

export interface TrainingStepInput {
  instances: TaskInstance[];
  config: RunConfig;
  policy: PolicyClient;
  trainer: TrainerClient;
  judge?: ChatClient;
  simulator?: ChatClient;
  /** User simulator for instances with a live user (tau2). */
  userSimulator?: ChatClient;
  stepIndex: number;
  /** Prefix for group ids and sampler names (e.g. the run id). */
  runId?: string;
  /** Injectable sleep for judge/simulator backoff (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Called as each rollout finishes (progress reporting). */
  onRolloutDone?: (done: number, total: number) => void;
  /** Token estimate for the act-context budget between measured prompts. */
  countTokens?: (text: string) => number;
}

export type EvaluationInput = Omit<TrainingStepInput, "trainer"> & { trainer?: TrainerClient };

// ---------------------------------------------------------------------------------------------
// Wiring helpers
// ---------------------------------------------------------------------------------------------

function toSampling(s: { temperature: number; topP: number; maxTokens: number }): SamplingOptions {
  return { temperature: s.temperature, topP: s.topP, maxTokens: s.maxTokens };
}

export function rolloutOptionsFrom(config: RunConfig, countTokens?: (t: string) => number): RolloutOptions {
  return {
    paradigm: config.rollout.paradigm,
    shadowExecution: config.rollout.paradigm === "rehearse" && config.rollout.shadowExecution,
    maxAssistantTurns: config.rollout.maxAssistantTurns,
    maxUserTurns: config.rollout.maxUserTurns,
    maxMicroSteps: config.rollout.maxMicroSteps,
    promptBudgetTokens: config.rollout.promptBudgetTokens,
    fidelityProbe: config.kind === "eval" && config.fidelityProbe && config.rollout.paradigm === "environment",
    countTokens,
  };
}

export function driverConfigFrom(config: RunConfig, mode: "train" | "eval", input: { sleep?: (ms: number) => Promise<void>; countTokens?: (t: string) => number }): RolloutDriverConfig {
  const s = config.sampling;
  // rollout.responseBudgetTokens bounds every tool response a model writes: the rehearse role's (and the
  // fidelity probe's) generations as well as the external simulator's replies.
  const rehearse = (r: typeof s.rehearse) => ({ ...toSampling(r), maxTokens: Math.min(r.maxTokens, config.rollout.responseBudgetTokens) });
  return {
    options: rolloutOptionsFrom(config, input.countTokens),
    sampling:
      mode === "train"
        ? { act: toSampling(s.act), rehearse: rehearse(s.rehearse) }
        : { act: toSampling(s.evalAct), rehearse: rehearse(s.evalRehearse) },
    maxConcurrentRollouts: config.rollout.maxConcurrentRollouts,
    simulator: { temperature: 0.6, topP: 0.8, maxTokens: config.rollout.responseBudgetTokens, attempts: 5, timeoutMs: config.reward.judgeTimeoutS * 1000 },
    userSimulator: { timeoutMs: config.reward.judgeTimeoutS * 1000 },
    maxChecklists: config.reward.maxChecklists,
    sleep: input.sleep,
  };
}

/** The test-time options of a run config: each phase's sampling, the transcript bounds, the policy's token count. */
export function testTimeOptionsFrom(config: RunConfig, countTokens?: (t: string) => number): TestTimeOptions {
  const t = config.testTime;
  return {
    attempts: t.attempts,
    mode: t.mode,
    sampling: {
      act: toSampling(t.sampling.act),
      rehearse: toSampling(t.sampling.rehearse),
      assessment: toSampling(t.sampling.assessment),
      memory: toSampling(t.sampling.memory),
    },
    transcriptTokens: t.transcriptTokens,
    thinkingTokens: t.thinkingTokens,
    countTokens,
  };
}

/** What test-time rehearsal cost and how its private attempts ended (committed trajectories carry the records). */
export function testTimeMetrics(trajectories: TrajectoryResult[]): Record<string, number> {
  const m: Record<string, number> = {};
  const records = trajectories.flatMap((t) => (t.testTime ? [t.testTime] : []));
  if (records.length === 0) return m;
  addStats(m, "testtime/private_tokens", records.map((r) => r.privateTokens));
  const attempts = records.flatMap((r) => r.attempts);
  m["testtime/attempts"] = attempts.length;
  m["testtime/feedback_failed"] = attempts.filter((a) => a.feedbackError !== undefined).length;
  m["testtime/memory_failed"] = records.filter((r) => r.memoryError !== undefined).length;
  m["testtime/memory_truncated"] = records.filter((r) => r.memoryTruncated === true).length;
  m["testtime/feedback_truncated"] = attempts.filter((a) => a.feedbackTruncated === true).length;
  addStats(m, "testtime/memory_chars", records.map((r) => r.memory.length));
  for (const a of attempts) m[`testtime/private_termination/${a.terminationReason}`] = (m[`testtime/private_termination/${a.terminationReason}`] ?? 0) + 1;
  return m;
}

export function createJudge(config: RunConfig, client: ChatClient | undefined, sleep?: (ms: number) => Promise<void>): ChecklistJudge {
  const r = config.reward;
  return new ChecklistJudge(client, {
    concurrency: r.judgeConcurrency,
    timeoutMs: r.judgeTimeoutS * 1000,
    retries: r.judgeRetries,
    temperature: r.judgeTemperature,
    topP: r.judgeTopP,
    maxTokens: r.judgeMaxTokens,
    sleep,
  });
}

export function judgeHookFor(judge: ChecklistJudge, maxChecklists: number): JudgeTurnHook {
  return ({ job, state }) =>
    judgeTurn(
      {
        instance: job.instance,
        messages: state.messages,
        turnStartIndex: state.turnStartIndex,
        userTurnIndex: state.userTurnIndex,
        lastToolFailed: state.lastToolFailed,
        maxChecklists,
      },
      judge,
    );
}

export function lossConfigFrom(config: RunConfig): LossConfig {
  const o = config.optim;
  return {
    loss: "ppo",
    clipLow: o.clipLow,
    clipHigh: o.clipHigh,
    dualClip: o.dualClip,
    klCoef: o.useKl ? o.klCoef : 0,
    klType: o.klType,
    entropyCoef: o.entropyCoef,
    lossAgg: o.lossAgg,
    recomputeLogprobs: o.recomputeLogprobs,
  };
}

export function optimConfigFrom(config: RunConfig): OptimConfig {
  const o = config.optim;
  return { lr: o.lr, beta1: o.beta1, beta2: o.beta2, eps: 1e-8, weightDecay: o.weightDecay, gradClip: o.gradClip };
}

const isGeneration = (t: TurnRecord): t is TurnRecord & { role: Role } =>
  (t.role === "act" || t.role === "rehearse") && t.error?.code !== "GENERATION_FAILED";

export function toTrajectory(r: RolloutResult, paradigm: Paradigm): TrajectoryResult {
  const turns = r.state.records as TurnResult[];
  let prompt = 0;
  let response = 0;
  let actResponse = 0;
  let rehearseResponse = 0;
  for (const t of turns) {
    prompt += t.promptTokenCount;
    response += t.responseTokenCount;
    if (t.role === "act") actResponse += t.responseTokenCount;
    if (t.role === "rehearse") rehearseResponse += t.responseTokenCount;
  }
  const fidelities = turns.flatMap((t) => (t.fidelity ? [t.fidelity] : []));
  return {
    instanceId: r.job.instance.id,
    dataSource: r.job.instance.dataSource,
    groupId: r.job.groupId,
    rolloutIndex: r.job.rolloutIndex,
    rolloutId: r.job.rolloutId,
    paradigm,
    reward: r.normalizedReward,
    episodeReward: r.episodeReward,
    won: r.won,
    outcome: r.outcome,
    success: r.success,
    ...(r.error ? { error: r.error } : {}),
    terminationReason: r.terminationReason,
    tokenCounts: { prompt, response, actResponse, rehearseResponse },
    assistantTurns: r.state.assistantTurns,
    userTurns: r.state.userTurns,
    microSteps: r.state.microSteps,
    toolCalls: r.state.messages.filter((m) => m.role === "tool").length,
    fidelity: summarizeFidelity(fidelities),
    turns,
    verdicts: r.judgements.flatMap((j) => j.verdicts),
    judgements: r.judgements.map(({ verdicts: _v, ...rest }) => rest),
    messages: r.state.messages,
    wallMs: r.wallMs,
  };
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

function addStats(metrics: Record<string, number>, prefix: string, values: number[]): void {
  if (values.length === 0) return;
  let sum = 0;
  let max = -Infinity;
  let min = Infinity;
  for (const v of values) {
    sum += v;
    if (v > max) max = v;
    if (v < min) min = v;
  }
  metrics[`${prefix}/mean`] = sum / values.length;
  metrics[`${prefix}/max`] = max;
  metrics[`${prefix}/min`] = min;
}

/** Episodes that ran: every score is computed over these; errored episodes are counted, never scored. */
export const ranEpisodes = <T extends Pick<TrajectoryResult, "outcome">>(trajectories: readonly T[]): T[] => trajectories.filter((t) => t.outcome !== "error");

/**
 * Success over groups of K rollouts: pass@K = share of groups with a success, avg@K = share of episodes.
 * Only episodes that ran count (a group whose every episode errored is left out).
 */
function passAndAvg(trajectories: readonly TrajectoryResult[], hit: (t: TrajectoryResult) => boolean): { pass: number; avg: number } | null {
  if (trajectories.length === 0) return null;
  const groups = new Map<string, boolean[]>();
  for (const t of trajectories) groups.set(t.groupId, [...(groups.get(t.groupId) ?? []), hit(t)]);
  return { pass: [...groups.values()].filter((g) => g.some(Boolean)).length / groups.size, avg: trajectories.filter(hit).length / trajectories.length };
}

export function rolloutMetrics(trajectories: TrajectoryResult[], rolloutsPerInstance: number, responseBudget: number, prefix: "episode" | "val"): Record<string, number> {
  const m: Record<string, number> = {};
  const ran = ranEpisodes(trajectories);
  const gens = trajectories.flatMap((t) => t.turns.filter(isGeneration));
  addStats(m, "response_length", gens.map((g) => g.responseTokenCount));
  addStats(m, "prompt_length", gens.map((g) => g.promptTokenCount));
  if (gens.length) m["response_length/clip_ratio"] = gens.filter((g) => g.finishReason === "length" || g.responseTokenCount >= responseBudget).length / gens.length;
  for (const role of ["act", "rehearse"] as const) {
    const rows = gens.filter((g) => g.role === role);
    m[`rows/${role}`] = rows.length;
    addStats(m, `response_length/${role}`, rows.map((g) => g.responseTokenCount));
    if (rows.length) m[`${role}/valid_action_ratio`] = rows.filter((g) => g.valid).length / rows.length;
  }
  if (gens.length) m[`${prefix === "val" ? "val" : "episode"}/valid_action_ratio`] = gens.filter((g) => g.valid).length / gens.length;
  if (prefix === "episode") {
    addStats(m, "episode/reward", ran.map((t) => t.episodeReward));
    addStats(m, "episode/normalized_reward", ran.map((t) => t.reward));
    addStats(m, "episode/length", ran.map((t) => t.microSteps));
    addStats(m, "episode/tool_call_count", ran.map((t) => t.toolCalls));
  } else {
    const bySource = new Map<string, TrajectoryResult[]>();
    for (const t of ran) bySource.set(t.dataSource, [...(bySource.get(t.dataSource) ?? []), t]);
    for (const [ds, ts] of bySource) {
      m[`val/${ds}/test_score`] = ts.reduce((s, t) => s + t.reward, 0) / ts.length;
      m[`val/${ds}/tool_call_count/mean`] = ts.reduce((s, t) => s + t.toolCalls, 0) / ts.length;
    }
  }
  // Success is the benchmark's own (TrajectoryResult.success); the reference's `won` (E > 0) keeps its own keys.
  const success = passAndAvg(ran, (t) => t.success);
  if (success) {
    m[`${prefix}/pass@${rolloutsPerInstance}`] = success.pass;
    m[`${prefix}/avg@${rolloutsPerInstance}`] = success.avg;
  }
  const won = passAndAvg(ran, (t) => t.won);
  if (won) {
    m[`${prefix}/won_pass@${rolloutsPerInstance}`] = won.pass;
    m[`${prefix}/won_avg@${rolloutsPerInstance}`] = won.avg;
  }
  for (const t of trajectories) m[`termination/${t.terminationReason}`] = (m[`termination/${t.terminationReason}`] ?? 0) + 1;
  const fid = trajectories.flatMap((t) => t.turns.flatMap((x) => (x.fidelity ? [x.fidelity] : [])));
  const fs = summarizeFidelity(fid);
  if (fs) {
    m["fidelity/comparisons"] = fs.comparisons;
    m["fidelity/exact_rate"] = fs.exactRate;
    m["fidelity/error_agreement"] = fs.errorAgreementRate;
    m["fidelity/invalid_rate"] = fs.invalidRate;
    m["fidelity/score"] = fs.meanScore;
  }
  const verdicts = ran.flatMap((t) => t.verdicts);
  if (verdicts.length) m["judge/pass_rate"] = verdicts.filter((v) => v.passed).length / verdicts.length;
  m["judge/calls"] = trajectories.reduce((s, t) => s + t.judgements.reduce((a, j) => a + j.judgeCalls, 0), 0);
  m["judge/failures"] = trajectories.reduce((s, t) => s + t.judgements.reduce((a, j) => a + j.judgeFailures, 0), 0);
  const tokens = gens.reduce((s, g) => s + g.promptTokenCount + g.responseTokenCount, 0);
  m["perf/total_num_tokens"] = tokens;
  return m;
}

const secondsSince = (t0: number) => (performance.now() - t0) / 1000;

// ---------------------------------------------------------------------------------------------
// Training step
// ---------------------------------------------------------------------------------------------

export async function runTrainingStep(input: TrainingStepInput): Promise<StepResult> {
  const { config, stepIndex } = input;
  const tStep = performance.now();
  const K = config.data.rolloutsPerInstance;
  const paradigm = config.rollout.paradigm;
  const jobs = expandJobs(input.instances, K, `${input.runId ?? "run"}:s${stepIndex}`);
  const judge = createJudge(config, input.judge, input.sleep);

  // 1. Sample K rollouts per instance (the judge runs inside, at each turn end).
  const tGen = performance.now();
  let done = 0;
  const results = await runRollouts(
    jobs,
    { policy: input.policy, simulator: input.simulator, userSimulator: input.userSimulator, judge: input.judge },
    driverConfigFrom(config, "train", input),
    judgeHookFor(judge, config.reward.maxChecklists),
    () => input.onRolloutDone?.(++done, jobs.length),
  );
  const genS = secondsSince(tGen);
  const trajectories = results.map((r) => toTrajectory(r, paradigm));
  // Fail fast (typed StepFailedError) instead of training on nothing.
  const label = `training step ${stepIndex}`;
  const health = generationHealth(trajectories.flatMap((t) => t.turns));
  assertGenerationsHealthy(health, stepIndex, config.rollout.maxFailedGenerationShare, label);
  const episodes = episodeHealth(trajectories);
  assertEpisodesHealthy(episodes, stepIndex, config.rollout.maxEnvironmentErrorShare, label);

  // 2. Row scores and role-wise advantages.
  const tAdv = performance.now();
  const rows: (GenerationRow & { turn: TurnResult })[] = [];
  for (const t of trajectories) {
    // An episode that could not run (environment, user simulator, judge, node, context…) says nothing about the policy: it is recorded, not trained on.
    if (t.outcome === "error") continue;
    for (const turn of t.turns) {
      if (!isGeneration(turn)) continue;
      rows.push({
        instanceGroupId: t.groupId,
        trajectoryId: t.rolloutId,
        role: turn.role,
        score: rowScore(
          turn.role === "rehearse" ? groundedRehearseReward(t.reward, turn.fidelity?.score, config.reward.rehearsalGrounding) : t.reward,
          turn.valid,
          config.reward.invalidActionPenalty,
        ),
        promptTokens: turn.promptTokens,
        responseTokens: turn.tokens,
        logprobs: turn.logprobs,
        turn,
      });
    }
  }
  const { advantages } = computeAdvantages(rows, { roleWise: config.optim.roleWiseBaseline, normByStd: config.optim.normAdvByStd });
  rows.forEach((r, i) => {
    r.turn.score = r.score;
    r.turn.advantage = advantages[i];
    r.turn.advantageGroupId = config.optim.roleWiseBaseline ? roleGroupId(r.instanceGroupId, r.role) : r.instanceGroupId;
  });
  const data = buildTrainingData(rows, advantages);
  assertTrainingData(data.length, health, stepIndex, label);
  const advS = secondsSince(tAdv);

  // 3. One update on both roles' rows, then publish weights for sampling.
  const tUpdate = performance.now();
  const metrics: Record<string, number> = {};
  if (data.length > 0) {
    const fb = await input.trainer.forwardBackward(data, lossConfigFrom(config));
    const opt = await input.trainer.optimStep(optimConfigFrom(config));
    for (const [k, v] of Object.entries({ ...fb.metrics, ...opt.metrics })) metrics[k.includes("/") ? k : `actor/${k}`] = v;
  }
  const updateS = secondsSince(tUpdate);
  // Ephemeral publication: the next step samples from the new weights. Persistent sampler weights are
  // the caller's business (checkpoints only).
  await input.trainer.updateSampler();

  Object.assign(
    metrics,
    rolloutMetrics(trajectories, K, config.rollout.responseBudgetTokens, "episode"),
    generationHealthMetrics(health),
    episodeHealthMetrics(episodes),
  );
  for (const role of ["act", "rehearse"] as const) {
    const rr = rows.map((r, i) => ({ r, a: advantages[i] })).filter((x) => x.r.role === role);
    addStats(metrics, `critic/${role}/score`, rr.map((x) => x.r.score));
    addStats(metrics, `critic/${role}/rewards`, rr.map((x) => x.r.score));
    addStats(metrics, `critic/${role}/advantages`, rr.map((x) => x.a));
    addStats(metrics, `critic/${role}/returns`, rr.map((x) => x.a));
  }
  const stepS = secondsSince(tStep);
  metrics["timing_s/gen"] = genS;
  metrics["timing_s/adv"] = advS;
  metrics["timing_s/update_actor"] = updateS;
  metrics["timing_s/step"] = stepS;
  metrics["perf/time_per_step"] = stepS;
  metrics["perf/throughput"] = stepS > 0 ? metrics["perf/total_num_tokens"] / stepS : 0;
  metrics["training/global_step"] = stepIndex;
  metrics["training/num_datums"] = data.length;
  return { kind: "train", stepIndex, trajectories, metrics };
}

// ---------------------------------------------------------------------------------------------
// Evaluation (no weight update; eval sampling; optional test-time rehearsal)
// ---------------------------------------------------------------------------------------------

export async function runEvaluation(input: EvaluationInput): Promise<StepResult> {
  const { config, stepIndex } = input;
  const tStep = performance.now();
  const K = config.kind === "eval" ? Math.max(config.trialsPerTask, 1) : config.data.rolloutsPerInstance;
  const judge = createJudge(config, input.judge, input.sleep);
  const driver = driverConfigFrom(config, "eval", input);
  const hook = judgeHookFor(judge, config.reward.maxChecklists);
  const jobs = expandJobs(input.instances, K, `${input.runId ?? "run"}:eval${stepIndex}`);
  let trajectories: TrajectoryResult[];
  let done = 0;
  // Generations outside the committed rollouts (private attempts, assessments, memory) count toward health too.
  const sideTurns: Pick<TurnResult, "role" | "error">[] = [];
  if (config.testTime.enabled) {
    const results: TrajectoryResult[] = new Array(jobs.length);
    let next = 0;
    // maxConcurrentRollouts bounds every rollout in flight, private ones included: parallel mode runs N per job at once.
    const perJob = config.testTime.mode === "parallel" ? config.testTime.attempts : 1;
    const width = Math.max(1, Math.min(Math.floor(config.rollout.maxConcurrentRollouts / perJob), jobs.length));
    const options = testTimeOptionsFrom(config, input.countTokens);
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next < jobs.length) {
          const i = next++;
          const tt = await runTestTimeRehearsal(jobs[i], { policy: input.policy, simulator: input.simulator, userSimulator: input.userSimulator, judge: input.judge }, driver, hook, options);
          const privateAttempts = tt.attempts.map((a) => toTrajectory(a.result, "rehearse"));
          for (const p of privateAttempts) sideTurns.push(...p.turns);
          sideTurns.push(...tt.sideGenerations);
          results[i] = { ...toTrajectory(tt.committed, tt.committedParadigm), testTime: tt.record, privateAttempts };
          input.onRolloutDone?.(++done, jobs.length);
        }
      }),
    );
    trajectories = results;
  } else {
    const results = await runRollouts(jobs, { policy: input.policy, simulator: input.simulator, userSimulator: input.userSimulator, judge: input.judge }, driver, hook, () => input.onRolloutDone?.(++done, jobs.length));
    trajectories = results.map((r) => toTrajectory(r, config.rollout.paradigm));
  }
  const health = generationHealth([...trajectories.flatMap((t) => t.turns), ...sideTurns]);
  assertGenerationsHealthy(health, stepIndex, config.rollout.maxFailedGenerationShare, `evaluation at step ${stepIndex}`);
  const episodes = episodeHealth(trajectories);
  assertEpisodesHealthy(episodes, stepIndex, config.rollout.maxEnvironmentErrorShare, `evaluation at step ${stepIndex}`);
  const metrics = {
    ...rolloutMetrics(trajectories, K, config.rollout.responseBudgetTokens, "val"),
    ...generationHealthMetrics(health),
    ...episodeHealthMetrics(episodes),
  };
  if (config.testTime.enabled) Object.assign(metrics, testTimeMetrics(trajectories));
  metrics["timing_s/testing"] = secondsSince(tStep);
  metrics["training/global_step"] = stepIndex;
  return { kind: "eval", stepIndex, trajectories, metrics };
}
