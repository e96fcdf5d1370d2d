/**
 * A τ² task as the engine's TaskInstance: a LIVE user simulator and the exact v0.2.0 reward, for
 * training (all three paradigms) and evaluation runs, the same for every domain:
 * - the agent's context is the policy system message only (the greeting is not in it);
 * - every user message comes from the user simulator (harness/user.ts); a stop token ends the episode as
 *   user_stop / transfer / out_of_scope; a telecom user first acts on its phone (recorded as `user_tool`);
 * - the world (harness/world.ts) is the task's environment after set_state: it answers the agent's calls
 *   in the environment paradigm and in shadow execution, and the user's calls always;
 * - the reward (harness/evaluator.ts) replays the episode's calls on a fresh environment; 0 for any other
 *   ending. Calls the real environment answered must replay identically.
 */
import { isSuccess } from "./metrics";
import type { ChatMessage } from "../../../engine/io";
import type { TurnRecord } from "../../../engine/machine";
import type { ItemVerdict } from "../../../engine/reward";
import type { EpisodeScore, TaskInstance } from "../../../engine/types";
import { tau2Dataset, tau2InstanceIdFor, type Tau2Task } from "../../../../lib/tau2/tasks";
import { userSystemPrompt, GREETING } from "../../../../lib/tau2/prompts";
import { STOP_REASON } from "./episode";
import { evaluateEpisode, type RewardBreakdown, type ScoredToolCall, type ScoringInput } from "./evaluator";
import { taskEnvironment } from "./replay";
import type { Tau2Source } from "./source";
import { userTurn } from "./user";
import { isTau2World, Tau2World } from "./world";

/** Termination reasons that end an episode normally (anything else is premature: reward 0). */
export const TAU2_NORMAL_ENDINGS = new Set<string>(Object.values(STOP_REASON));

export interface Tau2LiveOptions {
  /** User simulator temperature (default 0). */
  userTemperature?: number;
}

/** The episode seed: names what the episode's environments mint (telecom's new bills) alike in the episode and its replay. */
export const episodeSeed = (task: Tau2Task, rolloutIndex = 0) => `${task.id}#${rolloutIndex}`;

/**
 * The calls (agent's and user's, in trajectory order), texts and ending of an engine episode, in tau2's
 * scoring terms. Only calls the real environment answered are compared on replay; the user's calls only
 * when every agent call reached the same world (environment paradigm, shadow execution).
 */
export function scoringInputOf(messages: ChatMessage[], records: Pick<TurnRecord, "role" | "call" | "calls" | "real">[], terminationReason: string): ScoringInput {
  const real = new Map<string, string>();
  for (const r of records) if (r.role === "environment" && r.call && r.real !== undefined) real.set(r.call.id, r.real);
  const worldSawAgent = !records.some((r) => r.role === "simulator" || (r.role === "rehearse" && r.real === undefined));
  const parsed = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return text; // kept as text: the replay answers it with the same error the episode got
    }
  };
  const toolCalls: ScoredToolCall[] = [];
  for (const r of records) {
    if (r.role === "act") {
      for (const c of r.calls ?? []) {
        const recordedContent = real.get(c.id);
        toolCalls.push({ name: c.name, arguments: parsed(c.argumentsJson), argumentsJson: c.argumentsJson, requestor: "assistant", ...(recordedContent !== undefined ? { recordedContent } : {}) });
      }
    } else if (r.role === "user_tool" && r.call) {
      toolCalls.push({ name: r.call.name, arguments: parsed(r.call.argumentsJson), argumentsJson: r.call.argumentsJson, requestor: "user", ...(worldSawAgent && r.real !== undefined ? { recordedContent: r.real } : {}) });
    }
  }
  const assistantTexts = messages.filter((m) => m.role === "assistant").map((m) => m.content);
  return { toolCalls, assistantTexts, premature: !TAU2_NORMAL_ENDINGS.has(terminationReason) };
}

/** The breakdown as checklist verdicts (programmatic), so the UI shows what passed. */
export function verdictsOf(breakdown: RewardBreakdown, userTurn: number, dbQuestion = "Does the database end in the gold end state?"): ItemVerdict[] {
  const base = { checklist: 0, userTurn, step: 0, required: false, source: "programmatic" as const };
  const out: ItemVerdict[] = [];
  const counts = (k: string) => breakdown.basis.includes(k);
  if (breakdown.db) out.push({ ...base, itemId: "db", question: dbQuestion, weight: counts("DB") ? 1 : 0, passed: breakdown.db.match });
  breakdown.envAssertions?.checks.forEach((c, i) =>
    out.push({ ...base, itemId: `env_assertion_${i}`, question: `Does ${c.funcName} (on the ${c.envType === "user" ? "user's device" : "agent's DB"}) hold?`, weight: counts("ENV_ASSERTION") ? 1 : 0, passed: c.met }),
  );
  breakdown.communicate?.checks.forEach((c, i) =>
    out.push({ ...base, itemId: `communicate_${i}`, question: `Does the agent tell the user "${c.info}"?`, weight: counts("COMMUNICATE") ? 1 : 0, passed: c.met }),
  );
  breakdown.action?.checks.forEach((c) =>
    out.push({ ...base, itemId: `action_${c.actionId}`, question: `Does the agent call ${c.name} with the gold arguments?${counts("ACTION") ? "" : " (reported, not rewarded)"}`, weight: counts("ACTION") ? 1 : 0, passed: c.matched }),
  );
  return out;
}

/** The episode's world for a task: its environment after set_state. */
export function tau2WorldFor(source: Tau2Source, task: Tau2Task, rolloutIndex = 0): Tau2World {
  return new Tau2World(taskEnvironment(source, task, episodeSeed(task, rolloutIndex)), source.domain !== "retail");
}

export function tau2Instance(source: Tau2Source, task: Tau2Task, opts: Tau2LiveOptions = {}): TaskInstance {
  const userPrompt = userSystemPrompt(source.userGuidelines, task);
  const dbQuestion = source.domain === "retail" ? "Does the store database end in the gold end state?" : undefined;
  return {
    id: tau2InstanceIdFor(source.domain, task.id),
    dataSource: tau2Dataset(source.domain),
    messages: [{ role: "system", content: source.agentSystemPrompt }],
    tools: source.agentTools,
    followUpUserMessages: [],
    checklists: [],
    environment: { create: (ctx) => tau2WorldFor(source, task, ctx?.rolloutIndex ?? 0) },
    liveUser: {
      ...(source.userTools ? { needsWorld: true } : {}),
      async next(client, messages, { signal, world }) {
        const { text, stop, actions } = await userTurn(client, {
          systemPrompt: userPrompt,
          tools: source.userTools,
          visible: messages,
          world: isTau2World(world) ? world : undefined,
          temperature: opts.userTemperature ?? 0,
          signal,
        });
        return { text, ...(stop ? { stop: STOP_REASON[stop] } : {}), ...(actions.length ? { actions } : {}) };
      },
    },
    scoreEpisode({ messages, records, terminationReason, rolloutIndex }): EpisodeScore {
      const input = scoringInputOf(messages, records, terminationReason);
      const breakdown = evaluateEpisode(source, task, { ...input, assistantTexts: [GREETING, ...input.assistantTexts] }, episodeSeed(task, rolloutIndex ?? 0));
      const last = records[records.length - 1];
      // Why the episode ended, with the failure's detail when there is one (e.g. the user simulator's HTTP error).
      const termination = { reason: terminationReason, ...(last?.error ? { code: last.error.code, detail: last.error.payload } : {}) };
      // tau2's own success: reward 1.0 by its evaluator (a partial DB × COMMUNICATE product is a failure).
      return { reward: breakdown.reward, success: isSuccess(breakdown.reward), verdicts: verdictsOf(breakdown, last?.userTurn ?? 0, dbQuestion), detail: { taskId: task.id, termination, ...breakdown } };
    },
  };
}
