/**
 * tau2 retail tasks as the engine's TaskInstance with a LIVE user simulator and the exact v0.2.0 reward,
 * usable by training (all three paradigms) and evaluation runs:
 * - the agent's context is the policy system message only (the greeting is not in it, spec §7);
 * - every user message comes from the user simulator (TaskInstance.liveUser), which sees the greeting
 *   and the agent's text messages with roles flipped, never tool calls or results (spec §8);
 *   a stop token ends the episode as user_stop / transfer / out_of_scope;
 * - the real RetailEnv answers calls in the `environment` paradigm and in shadow execution;
 * - the reward (TaskInstance.scoreEpisode) replays the episode's calls on a fresh DB: DB × COMMUNICATE,
 *   0 for any other ending (spec §10). Calls answered by the real environment must replay identically.
 */
import type { ChatMessage } from "../../engine/io";
import type { ItemVerdict } from "../../engine/reward";
import type { EpisodeScore, TaskInstance } from "../../engine/types";
import { retailToolEnvironment, tau2RetailInstance, type Tau2RetailSource } from "./adapter";
import { STOP_REASON } from "./episode";
import { isSuccess, passHatK, type RewardBreakdown, type ScoredToolCall } from "./scoring";
import { TAU2_RETAIL_DATASET, tau2TaskIdOf, type Tau2Task } from "./tasks";

export { TAU2_RETAIL_DATASET, tau2InstanceId, tau2TaskIdOf } from "../../../lib/tau2/tasks";

/** Termination reasons that end an episode normally (anything else is premature: reward 0). */
export const TAU2_NORMAL_ENDINGS = new Set<string>(Object.values(STOP_REASON));

export interface Tau2LiveOptions {
  /** User simulator temperature (spec default 0). */
  userTemperature?: number;
}

/** The calls, texts and ending of an engine conversation, in tau2's scoring terms. */
export function scoringInputOf(messages: ChatMessage[], records: { role: string; call?: { id: string }; real?: string }[], terminationReason: string) {
  // Real responses by call id: only calls the real environment answered in the conversation must replay identically.
  const real = new Map<string, string>();
  for (const r of records) if (r.role === "environment" && r.call && r.real !== undefined) real.set(r.call.id, r.real);
  const toolCalls: ScoredToolCall[] = [];
  const assistantTexts: string[] = [];
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    assistantTexts.push(m.content);
    for (const c of m.tool_calls ?? []) {
      let args: unknown = c.function.arguments;
      try {
        args = JSON.parse(c.function.arguments);
      } catch {
        // kept as text: the replay answers it with the tool's argument error, as the episode did
      }
      const recordedContent = real.get(c.id);
      toolCalls.push({ name: c.function.name, arguments: args, ...(recordedContent !== undefined ? { recordedContent } : {}) });
    }
  }
  return { toolCalls, assistantTexts, premature: !TAU2_NORMAL_ENDINGS.has(terminationReason) };
}

/** The breakdown as checklist verdicts (programmatic), so the UI shows what passed. */
export function verdictsOf(breakdown: RewardBreakdown, userTurn: number): ItemVerdict[] {
  const base = { checklist: 0, userTurn, step: 0, required: false, source: "programmatic" as const };
  const out: ItemVerdict[] = [];
  const counts = (k: string) => breakdown.basis.includes(k);
  if (breakdown.db) {
    out.push({ ...base, itemId: "db", question: "Does the store database end in the gold end state?", weight: counts("DB") ? 1 : 0, passed: breakdown.db.match });
  }
  breakdown.communicate?.checks.forEach((c, i) =>
    out.push({ ...base, itemId: `communicate_${i}`, question: `Does the agent tell the user "${c.info}"?`, weight: counts("COMMUNICATE") ? 1 : 0, passed: c.met }),
  );
  breakdown.action?.checks.forEach((c) =>
    out.push({ ...base, itemId: `action_${c.actionId}`, question: `Does the agent call ${c.name} with the gold arguments?${counts("ACTION") ? "" : " (reported, not rewarded)"}`, weight: counts("ACTION") ? 1 : 0, passed: c.matched }),
  );
  return out;
}

export function tau2LiveInstance(source: Tau2RetailSource, task: Tau2Task, opts: Tau2LiveOptions = {}): TaskInstance {
  const tau2 = tau2RetailInstance(source, task);
  return {
    id: tau2.id,
    dataSource: TAU2_RETAIL_DATASET,
    messages: tau2.messages,
    tools: tau2.tools,
    followUpUserMessages: [],
    checklists: [],
    environment: { create: () => retailToolEnvironment(source.db) },
    liveUser: {
      async next(client, messages, { signal }) {
        const { text, stop } = await tau2.userTurn(client, messages, { temperature: opts.userTemperature ?? 0, signal });
        return { text, ...(stop ? { stop: STOP_REASON[stop] } : {}) };
      },
    },
    scoreEpisode({ messages, records, terminationReason }): EpisodeScore {
      const breakdown = tau2.score(scoringInputOf(messages, records, terminationReason));
      const last = records[records.length - 1];
      // Why the episode ended, with the failure's detail when there is one (e.g. the user simulator's HTTP error).
      const termination = { reason: terminationReason, ...(last?.error ? { code: last.error.code, detail: last.error.payload } : {}) };
      // tau2's own success: reward 1.0 by its evaluator (a partial DB × COMMUNICATE product is a failure).
      return { reward: breakdown.reward, success: isSuccess(breakdown.reward), verdicts: verdictsOf(breakdown, last?.userTurn ?? 0), detail: { taskId: task.id, termination, ...breakdown } };
    },
  };
}

/** What an evaluation needs of a trajectory (the engine's TrajectoryResult has these fields). */
export interface Tau2TrialOutcome {
  instanceId: string;
  reward: number;
  terminationReason: string;
  /** "error": the trial could not run (e.g. the user simulator failed); it is left out of pass^k. Absent: it ran. */
  outcome?: string;
}

export interface Tau2TaskResult {
  taskId: string;
  /** Trials that ran (errored ones are counted in `errored`, not here). */
  trials: number;
  successes: number;
  rewards: number[];
  terminations: string[];
  errored: number;
}

/** Per-task results, in first-seen order. */
export function perTaskResults(trials: Tau2TrialOutcome[]): Tau2TaskResult[] {
  const byTask = new Map<string, Tau2TaskResult>();
  for (const t of trials) {
    const taskId = tau2TaskIdOf(t.instanceId);
    const r = byTask.get(taskId) ?? { taskId, trials: 0, successes: 0, rewards: [], terminations: [], errored: 0 };
    r.terminations.push(t.terminationReason);
    if (t.outcome === "error") r.errored++;
    else {
      r.trials++;
      r.rewards.push(t.reward);
      if (isSuccess(t.reward)) r.successes++;
    }
    byTask.set(taskId, r);
  }
  return [...byTask.values()];
}

/**
 * Evaluation metrics over the trials that ran: `val/tau2/pass^k` for k = 1 … (fewest trials of any task
 * that ran at all), the mean reward and the number of tasks; `val/tau2/errored` counts the trials left out.
 * Keys are stored as metric points on the evaluation step.
 */
export function tau2EvalMetrics(trials: Tau2TrialOutcome[]): Record<string, number> {
  const all = perTaskResults(trials);
  const tasks = all.filter((t) => t.trials > 0);
  const ran = trials.filter((t) => t.outcome !== "error");
  const out: Record<string, number> = {};
  const errored = trials.length - ran.length;
  if (errored > 0) out["val/tau2/errored"] = errored;
  if (tasks.length === 0) return out;
  for (const { k, value } of passHatK(new Map(tasks.map((t) => [t.taskId, t.rewards])))) out[`val/tau2/pass^${k}`] = value;
  out["val/tau2/reward/mean"] = ran.reduce((s, t) => s + t.reward, 0) / ran.length;
  out["val/tau2/tasks"] = tasks.length;
  out["val/tau2/trials"] = ran.length;
  return out;
}
