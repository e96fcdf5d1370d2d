/**
 * The async rollout driver: runs the pure machine (machine.ts) for many rollouts at once with
 * bounded concurrency, fulfilling each need through the injected clients:
 * act / rehearse → PolicyClient, simulator paradigm → external ChatClient, environment paradigm
 * and shadow execution → the instance's executable environment, turn ends → the judge hook.
 */
import type { ChatClient, PolicyClient, SamplingOptions } from "./io";
import {
  applyEvent,
  nextNeed,
  type PendingCall,
  type RolloutOptions,
  type RolloutState,
  startRollout,
  Termination,
} from "./machine";
import { buildSimulatorPrompt, parseSimulatorResponse, SIMULATOR_RESPONSE_SCHEMA } from "./prompts";
import { normalizedEpisodeReward, type TurnJudgement } from "./reward";
import { toolError } from "./parsers";
import type { TaskInstance, ToolEnvironment } from "./types";

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
}

export interface RolloutDriverConfig {
  options: RolloutOptions;
  sampling: { act: SamplingOptions; rehearse: SamplingOptions };
  maxConcurrentRollouts: number;
  /** External simulator call settings (reference: 0.6 / 0.8 / 8000, 5 attempts). */
  simulator?: { temperature: number; topP: number; maxTokens: number; attempts: number; timeoutMs: number };
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
  /** Episode finished with E > 0 (reference `won`). */
  won: boolean;
  wallMs: number;
}

async function executeSafely(env: ToolEnvironment, call: PendingCall): Promise<string> {
  try {
    return await env.execute(call.name, call.argumentsJson);
  } catch (e) {
    return JSON.stringify(toolError("ENVIRONMENT_EXCEPTION", e instanceof Error ? e.message : String(e)));
  }
}

async function simulateExternally(
  client: ChatClient | undefined,
  state: RolloutState,
  call: PendingCall,
  config: RolloutDriverConfig,
): Promise<{ content: string; failed: boolean }> {
  if (!client) return { content: JSON.stringify({ error: "no simulator configured" }), failed: true };
  const s = config.simulator ?? { temperature: 0.6, topP: 0.8, maxTokens: 8000, attempts: 5, timeoutMs: 120_000 };
  const sleep = config.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const messages = buildSimulatorPrompt({ call, tools: state.tools, fewShot: state.fewShot });
  let lastError = "unknown";
  for (let attempt = 0; attempt < Math.max(1, s.attempts); attempt++) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), s.timeoutMs);
    try {
      const res = await client.complete({
        messages,
        temperature: s.temperature,
        topP: s.topP,
        maxTokens: s.maxTokens,
        jsonSchema: { ...SIMULATOR_RESPONSE_SCHEMA, schema: SIMULATOR_RESPONSE_SCHEMA.schema as unknown as Record<string, unknown> },
        signal: controller.signal,
      });
      const parsed = parseSimulatorResponse(res.text);
      if (parsed.ok) return { content: parsed.content, failed: false };
      lastError = parsed.error;
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
    } finally {
      clearTimeout(timer);
    }
    if (attempt + 1 < s.attempts) await sleep(Math.min(2 ** (attempt + 1), 30) * 1000);
  }
  return { content: JSON.stringify({ error: lastError }), failed: true };
}

/** Run one rollout to termination. */
export async function runOneRollout(
  job: RolloutJob,
  clients: RolloutClients,
  config: RolloutDriverConfig,
  judgeTurnHook: JudgeTurnHook,
): Promise<RolloutResult> {
  const started = performance.now();
  let state = startRollout(job.instance, config.options, job.rolloutId);
  const needsEnv =
    job.instance.environment &&
    (config.options.paradigm === "environment" || (config.options.paradigm === "rehearse" && config.options.shadowExecution));
  const env = needsEnv ? job.instance.environment!.create() : undefined;
  const judgements: TurnJudgement[] = [];

  for (;;) {
    const need = nextNeed(state);
    if (need.kind === "done") break;
    if (need.kind === "act") {
      try {
        const output = await clients.policy.generate({ role: "act", messages: need.messages, tools: need.tools, sampling: config.sampling.act });
        state = applyEvent(state, { kind: "act", output });
      } catch (e) {
        state = applyEvent(state, { kind: "act_failed", error: e instanceof Error ? e.message : String(e) });
      }
    } else if (need.kind === "rehearse") {
      // Shadow execution runs beside the generation; the rehearse prompt never sees its result.
      const real = need.shadow && env ? executeSafely(env, need.call) : undefined;
      try {
        const output = await clients.policy.generate({ role: "rehearse", messages: need.messages, sampling: config.sampling.rehearse });
        state = applyEvent(state, { kind: "rehearse", output, real: await real });
      } catch (e) {
        state = applyEvent(state, { kind: "rehearse_failed", error: e instanceof Error ? e.message : String(e), real: await real });
      }
    } else if (need.kind === "tool") {
      if (need.source === "environment") {
        const probe = need.probe
          ? clients.policy.generate({ role: "rehearse", messages: need.probe, sampling: config.sampling.rehearse }).catch(() => undefined)
          : undefined;
        const content = env ? await executeSafely(env, need.call) : JSON.stringify(toolError("NO_ENVIRONMENT", "this task has no executable environment"));
        state = applyEvent(state, { kind: "tool", content, probe: await probe });
      } else {
        const r = await simulateExternally(clients.simulator, state, need.call, config);
        state = applyEvent(state, { kind: "tool", content: r.content, failed: r.failed });
      }
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
        });
        state = applyEvent(state, { kind: "judged", stop: true, reason: Termination.interactionException });
      }
    }
  }

  const episodeReward = judgements.reduce((s, j) => s + j.reward, 0);
  const numChecklists = Math.min(job.instance.checklists.length, config.maxChecklists);
  return {
    job,
    state,
    judgements,
    episodeReward,
    normalizedReward: normalizedEpisodeReward(episodeReward, numChecklists, state.numChecklistTurns),
    terminationReason: state.terminationReason ?? "unknown",
    won: episodeReward > 0,
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
