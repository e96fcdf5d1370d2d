/**
 * The async rollout driver: runs the pure machine (machine.ts) for many rollouts at once with
 * bounded concurrency, fulfilling each need through the injected clients:
 * act / rehearse → PolicyClient, simulator paradigm → external ChatClient, environment paradigm
 * and shadow execution → the instance's executable environment, turn ends → the judge hook.
 */
import type { ChatClient, PolicyClient, SamplingOptions } from "./io";
import { completeWithin } from "./chat-call";
import {
  applyEvent,
  isEnvironmentError,
  nextNeed,
  type PendingCall,
  type RolloutEvent,
  type RolloutOptions,
  type RolloutState,
  startRollout,
  Termination,
} from "./machine";
import { buildSimulatorPrompt, parseSimulatorResponse, SIMULATOR_RESPONSE_SCHEMA } from "./prompts";
import { normalizedEpisodeReward, type TurnJudgement } from "./reward";
import { pyDumps, toolErrorContent } from "./parsers";
import { EnvironmentFailure, type EpisodeScore, type TaskInstance, type ToolEnvironment, type WorldContext } from "./types";
import type { ChatMessage } from "./io";
import { decideOutcome, type EpisodeError } from "./outcome";
import type { Outcome } from "../../lib/outcomes";

export * from "./machine";

export interface RolloutJob {
  instance: TaskInstance;
  /** Explicit prompt-group id shared by the K rollouts of one instance in one step. */
  groupId: string;
  rolloutIndex: number;
  rolloutId: string;
}

/** K rollouts per instance, interleaved like the reference batch layout (rows i*K … i*K+K−1). */
export function expandJobs(instances: TaskInstance[], rolloutsPerInstance: number, groupPrefix: string): RolloutJob[] {
  const jobs: RolloutJob[] = [];
  instances.forEach((instance, i) => {
    const groupId = `${groupPrefix}:${i}:${instance.id}`;
    for (let k = 0; k < rolloutsPerInstance; k++) jobs.push({ instance, groupId, rolloutIndex: k, rolloutId: `${groupId}:${k}` });
  });
  return jobs;
}

export interface RolloutClients {
  policy: PolicyClient;
  /** External tool simulator (`simulator` paradigm). */
  simulator?: ChatClient;
  /** User simulator for instances with a live user (TaskInstance.liveUser). */
  userSimulator?: ChatClient;
  /** The run's judge, handed to end-of-episode scorers that ask one (TaskInstance.scoreEpisode). */
  judge?: ChatClient;
}

export interface RolloutDriverConfig {
  options: RolloutOptions;
  sampling: { act: SamplingOptions; rehearse: SamplingOptions };
  maxConcurrentRollouts: number;
  /** External simulator call settings (reference: 0.6 / 0.8 / 8000, 5 attempts). */
  simulator?: { temperature: number; topP: number; maxTokens: number; attempts: number; timeoutMs: number };
  /** Live-user calls: a reply that takes longer counts as a stall (default 120 s). */
  userSimulator?: { timeoutMs: number };
  /** How many checklists count (reference max_num_checklist). */
  maxChecklists: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Judges one finished user turn; throwing counts as an interaction exception. */
export type JudgeTurnHook = (ctx: { job: RolloutJob; state: RolloutState }) => Promise<TurnJudgement>;

export interface RolloutResult {
  job: RolloutJob;
  state: RolloutState;
  judgements: TurnJudgement[];
  /** Σ of judged turn rewards (reference `episode_rewards`, un-normalised). */
  episodeReward: number;
  /** R = E / numChecklists / numChecklistTurns. */
  normalizedReward: number;
  terminationReason: string;
  /** Episode finished with E > 0 (reference `won`): a training metric, not success. */
  won: boolean;
  /** The benchmark's own verdict, or an infrastructure error (outcome.ts). */
  outcome: Outcome;
  success: boolean;
  error?: EpisodeError;
  wallMs: number;
}

/** A call's real answer, or the environment's own failure (which ends the episode). */
type Execution = { ok: true; content: string; realError?: boolean } | { ok: false; failure: { code: string; detail: string } };

async function executeSafely(env: ToolEnvironment, call: PendingCall): Promise<Execution> {
  try {
    const out = await env.execute(call.name, call.argumentsJson);
    return typeof out === "string" ? { ok: true, content: out } : { ok: true, content: out.content, realError: out.isError };
  } catch (e) {
    if (e instanceof EnvironmentFailure) return { ok: false, failure: { code: e.code, detail: e.message } };
    // A tool that throws answers with an error the policy sees (the reference's behaviour); the episode goes on.
    return { ok: true, content: toolErrorContent("ENVIRONMENT_EXCEPTION", e instanceof Error ? e.message : String(e)) };
  }
}

async function simulateExternally(
  client: ChatClient | undefined,
  state: RolloutState,
  call: PendingCall,
  config: RolloutDriverConfig,
): Promise<{ content: string; failed: boolean }> {
  if (!client) return { content: simulatorFailure("no simulator configured"), failed: true };
  const s = config.simulator ?? { temperature: 0.6, topP: 0.8, maxTokens: 8000, attempts: 5, timeoutMs: 120_000 };
  const sleep = config.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const messages = buildSimulatorPrompt({ call, tools: state.tools, fewShot: state.fewShot });
  let lastError = "unknown";
  for (let attempt = 0; attempt < Math.max(1, s.attempts); attempt++) {
    try {
      const res = await completeWithin(client, s.timeoutMs, {
        messages,
        temperature: s.temperature,
        topP: s.topP,
        maxTokens: s.maxTokens,
        jsonSchema: { ...SIMULATOR_RESPONSE_SCHEMA, schema: SIMULATOR_RESPONSE_SCHEMA.schema as unknown as Record<string, unknown> },
      });
      const parsed = parseSimulatorResponse(res.text);
      if (parsed.ok) return { content: parsed.content, failed: false };
      lastError = parsed.error;
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
    }
    if (attempt + 1 < s.attempts) await sleep(Math.min(2 ** (attempt + 1), 30) * 1000);
  }
  return { content: simulatorFailure(lastError), failed: true };
}

/** The reference's external-simulator failure text: `json.dumps({"error": …}, ensure_ascii=True)`. */
function simulatorFailure(error: string): string {
  const s = pyDumps({ error }, true);
  return s.ok ? s.json : '{"error": "unknown"}';
}

/**
 * Ask the instance's live user for the next message. Never throws: a missing simulator or a failed
 * call is `user_error`, no reply within the timeout is `user_stalled` (the episode ends with that reason).
 */
export async function askLiveUser(
  instance: TaskInstance,
  client: ChatClient | undefined,
  messages: ChatMessage[],
  timeoutMs = 120_000,
  world?: ToolEnvironment,
): Promise<RolloutEvent> {
  if (!instance.liveUser) return { kind: "user_failed", reason: Termination.userError, detail: "this instance has no live user" };
  if (!client) return { kind: "user_failed", reason: Termination.userError, detail: "no user simulator is configured (rollout.userSimulator)" };
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Race the call against the timeout too: a client that ignores the abort signal must not hang the rollout.
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve("timeout");
    }, timeoutMs);
  });
  try {
    const reply = await Promise.race([instance.liveUser.next(client, messages, { signal: controller.signal, ...(world ? { world } : {}) }), timeout]);
    if (reply === "timeout") return { kind: "user_failed", reason: Termination.userStalled, detail: `the user simulator did not reply within ${timeoutMs / 1000} s` };
    if (!reply || typeof reply.text !== "string") return { kind: "user_failed", reason: Termination.userGarbage, detail: "the user simulator returned no text" };
    return { kind: "user", text: reply.text, ...(reply.stop ? { stop: reply.stop } : {}), ...(reply.actions?.length ? { actions: reply.actions } : {}) };
  } catch (e) {
    if (controller.signal.aborted) return { kind: "user_failed", reason: Termination.userStalled, detail: `the user simulator did not reply within ${timeoutMs / 1000} s` };
    return { kind: "user_failed", reason: Termination.userError, detail: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}

/** A thrown generation error as the machine records it: its text and, when it has one, its string code. */
function failure(e: unknown): { error: string; cause?: string } {
  const code = e && typeof e === "object" && typeof (e as { code?: unknown }).code === "string" ? (e as { code: string }).code : undefined;
  return { error: e instanceof Error ? e.message : String(e), ...(code ? { cause: code } : {}) };
}

/** Run one rollout to termination; the instance's world, when the rollout needs one, is created for it and closed after. */
export async function runOneRollout(
  job: RolloutJob,
  clients: RolloutClients,
  config: RolloutDriverConfig,
  judgeTurnHook: JudgeTurnHook,
): Promise<RolloutResult> {
  const needsEnv =
    job.instance.environment &&
    (config.options.paradigm === "environment" || (config.options.paradigm === "rehearse" && config.options.shadowExecution) || job.instance.liveUser?.needsWorld === true);
  const world: WorldContext = {
    rolloutIndex: job.rolloutIndex,
    async runEpisode(instance, label) {
      const r = await runOneRollout({ ...job, instance, rolloutId: `${job.rolloutId}:${label}` }, clients, config, judgeTurnHook);
      return { messages: r.state.messages, records: r.state.records, terminationReason: r.terminationReason };
    },
  };
  let env: ToolEnvironment | undefined;
  let startFailure: { code: string; detail: string } | undefined;
  if (needsEnv) {
    try {
      env = await job.instance.environment!.create(world);
    } catch (e) {
      // The world could not be created (a server that does not start): this episode ends, the step goes on.
      startFailure = e instanceof EnvironmentFailure ? { code: e.code, detail: e.message } : { code: "START_FAILED", detail: e instanceof Error ? e.message : String(e) };
    }
  }
  try {
    return await driveRollout(job, clients, config, judgeTurnHook, env, startFailure);
  } finally {
    // A world that fails to close (e.g. a server process already gone) must not lose the episode's result.
    await Promise.resolve(env?.close?.()).catch(() => {});
  }
}

async function driveRollout(
  job: RolloutJob,
  clients: RolloutClients,
  config: RolloutDriverConfig,
  judgeTurnHook: JudgeTurnHook,
  env: ToolEnvironment | undefined,
  startFailure?: { code: string; detail: string },
): Promise<RolloutResult> {
  const started = performance.now();
  // A world may decide the opening messages (what it shows of itself); the instance's are the default.
  let state = startRollout(env?.messages ? { ...job.instance, messages: env.messages } : job.instance, config.options, job.rolloutId);
  if (startFailure) state = applyEvent(state, { kind: "environment_failed", ...startFailure });
  const judgements: TurnJudgement[] = [];

  for (;;) {
    const need = nextNeed(state);
    if (need.kind === "done") break;
    if (need.kind === "act") {
      try {
        const output = await clients.policy.generate({ role: "act", messages: need.messages, tools: need.tools, sampling: config.sampling.act });
        state = applyEvent(state, { kind: "act", output });
      } catch (e) {
        state = applyEvent(state, { kind: "act_failed", ...failure(e) });
      }
    } else if (need.kind === "rehearse") {
      // Shadow execution runs beside the generation; the rehearse prompt never sees its result.
      const pending = need.shadow && env ? executeSafely(env, need.call) : undefined;
      let event: RolloutEvent;
      try {
        const output = await clients.policy.generate({ role: "rehearse", messages: need.messages, sampling: config.sampling.rehearse, maxPromptTokens: config.options.promptBudgetTokens });
        event = { kind: "rehearse", output };
      } catch (e) {
        event = { kind: "rehearse_failed", ...failure(e) };
      }
      const real = await pending;
      // The rehearsal is recorded either way; a real execution that broke the environment then ends the episode.
      state = applyEvent(state, real?.ok ? { ...event, real: real.content, realError: real.realError } : event);
      if (real && !real.ok) state = applyEvent(state, { kind: "environment_failed", ...real.failure, call: need.call });
    } else if (need.kind === "tool") {
      if (need.source === "environment") {
        const probe = need.probe
          ? clients.policy.generate({ role: "rehearse", messages: need.probe, sampling: config.sampling.rehearse, maxPromptTokens: config.options.promptBudgetTokens }).catch(() => undefined)
          : undefined;
        const real: Execution = env ? await executeSafely(env, need.call) : { ok: true, content: toolErrorContent("NO_ENVIRONMENT", "this task has no executable environment") };
        const probed = await probe;
        state = real.ok
          ? applyEvent(state, { kind: "tool", content: real.content, probe: probed, realError: real.realError })
          : applyEvent(state, { kind: "environment_failed", ...real.failure, call: need.call });
      } else {
        const r = await simulateExternally(clients.simulator, state, need.call, config);
        state = applyEvent(state, { kind: "tool", content: r.content, failed: r.failed });
      }
    } else if (need.kind === "user") {
      state = applyEvent(state, await askLiveUser(job.instance, clients.userSimulator, need.messages, config.userSimulator?.timeoutMs, env));
    } else if (need.kind === "judge") {
      try {
        const judgement = await judgeTurnHook({ job, state });
        judgements.push(judgement);
        state = applyEvent(state, { kind: "judged", stop: judgement.stop, reason: judgement.reason });
      } catch (e) {
        judgements.push({
          userTurnIndex: state.userTurnIndex,
          reward: 0,
          checklistScores: [],
          stop: true,
          reason: Termination.interactionException,
          verdicts: [],
          judgeCalls: 0,
          judgeFailures: 0,
          // Kept so the episode's error names what the judge threw.
          detail: { error: e instanceof Error ? e.message : String(e) },
        });
        state = applyEvent(state, { kind: "judged", stop: true, reason: Termination.interactionException });
      }
    }
  }

  const terminationReason = state.terminationReason ?? "unknown";
  if (job.instance.scoreEpisode && !isEnvironmentError(terminationReason)) {
    // Episode-level reward (e.g. tau2's end state × communicate): it is already normalised to [0, 1].
    let score: EpisodeScore;
    try {
      score = await job.instance.scoreEpisode({
        messages: state.messages,
        records: state.records,
        terminationReason,
        rolloutIndex: job.rolloutIndex,
        ...(clients.judge ? { judge: clients.judge } : {}),
      });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      score = { reward: 0, verdicts: [], detail: { error: `scoring failed: ${message}` }, error: message };
    }
    const reward = Number.isFinite(score.reward) ? score.reward : 0;
    judgements.push({
      userTurnIndex: state.userTurnIndex,
      reward,
      checklistScores: [reward],
      stop: true,
      reason: terminationReason,
      verdicts: score.verdicts,
      judgeCalls: 0,
      judgeFailures: 0,
      ...(score.detail !== undefined ? { detail: score.detail } : {}),
    });
    const verdict = decideOutcome({ terminationReason, records: state.records, judgements, numChecklistTurns: state.numChecklistTurns, score: { ...score, reward } });
    return { job, state, judgements, episodeReward: reward, normalizedReward: reward, terminationReason, won: reward > 0, ...verdict, wallMs: performance.now() - started };
  }
  const episodeReward = judgements.reduce((s, j) => s + j.reward, 0);
  const numChecklists = Math.min(job.instance.checklists.length, config.maxChecklists);
  return {
    job,
    state,
    judgements,
    episodeReward,
    normalizedReward: normalizedEpisodeReward(episodeReward, numChecklists, state.numChecklistTurns),
    terminationReason,
    won: episodeReward > 0,
    ...decideOutcome({ terminationReason, records: state.records, judgements, numChecklistTurns: state.numChecklistTurns }),
    wallMs: performance.now() - started,
  };
}

/** Run every job with at most `maxConcurrentRollouts` in flight; results keep job order. */
export async function runRollouts(
  jobs: RolloutJob[],
  clients: RolloutClients,
  config: RolloutDriverConfig,
  judgeTurnHook: JudgeTurnHook,
  onRolloutDone?: (result: RolloutResult) => void,
): Promise<RolloutResult[]> {
  const results: RolloutResult[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await runOneRollout(jobs[i], clients, config, judgeTurnHook);
      onRolloutDone?.(results[i]);
    }
  };
  const width = Math.max(1, Math.min(config.maxConcurrentRollouts, jobs.length));
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}
