/**
 * One VitaBench task as the engine's TaskInstance, the episode as upstream's orchestrator runs it (96f3b85,
 * vita/run.py _run_task_internal, orchestrator/orchestrator.py, agent/llm_agent.py, user/user_simulator.py):
 * - the agent's context is its system prompt (agent_system_prompt with `{time} {weekday}` of the task) and the
 *   conversation from the user's first message on; the greeting ("Hello, how can I help you?" / "你好，请问需要什么服务？")
 *   is the trajectory's first message, which only the user simulator sees;
 * - the user simulator (TaskInstance.liveUser) gets user_system_prompt with the task's persona (str of its
 *   user_profile) and instructions, then the greeting and the agent's text messages as "user" and its own earlier
 *   messages as "assistant"; never tool calls or results. Any of ###STOP###, ###TRANSFER###, ###OUT-OF-SCOPE### in its
 *   message ends the episode (user_stop), the message kept;
 * - ###STOP### in the agent's message ends it (agent_stop); 300 orchestrator steps (user message, agent message, tool
 *   batch) end it as max_steps. Upstream counts errors but never increments the counter, so its 10-error abort never
 *   fires; neither does it here;
 * - the task's own world answers every call with upstream's exact text (world.ts), its error flag kept;
 * - the end-of-episode score is evaluate_simulation (scoring.ts): the sliding-window rubric judge on the run's judge
 *   node over the trajectory (greeting, user, assistant with its calls, tool messages), or 0 for an ending upstream
 *   scores 0. Each rubric's verdict is placed on the agent step of the window that last decided it, with the judge's
 *   justification.
 */
import { completeWithin } from "../../engine/chat-call";
import type { ChatClient, ChatMessage } from "../../engine/io";
import { visibleReply } from "../../engine/machine";
import type { TurnRecord } from "../../engine/machine";
import type { ItemVerdict } from "../../engine/reward";
import { EnvironmentFailure, type EpisodeScore, type TaskInstance, type ToolEnvironment, type ToolOutcome } from "../../engine/types";
import { errorKindOfTermination } from "../../../lib/outcomes";
import { pyFromJsonText, type PyValue } from "../../../lib/python/values";
import { type VitaDataset } from "../../../lib/vitabench/datasets";
import { agentSystemPrompt, AGENT_STOP_TOKEN, greeting, promptLanguage, USER_STOP_TOKENS, userSystemPrompt, vitaPrompt } from "../../../lib/vitabench/prompts";
import { vitaToolSchemas } from "../../../lib/vitabench/tools";
import type { VitaTask } from "./data";
import type { JudgeMessage } from "./evaluator";
import { createWorld, languageOf } from "./index";
import type { Clock } from "./registry";
import { pyErrorName, scoreTrajectory, type TrajectoryScore } from "./scoring";

/** Upstream's DEFAULT_MAX_STEPS. */
export const VITA_MAX_STEPS = 300;
/** Engine endings that are upstream's own: the judge scores these; every other ending scores 0 without it. */
const JUDGED: ReadonlySet<string> = new Set(["user_stop", "agent_stop"]);

export interface VitaEpisodeOptions {
  /** The episode's `datetime.now()` (order ids); default: the wall clock, strictly increasing. */
  clock?: () => Clock;
  judge: { timeoutMs: number; attempts: number; maxTokens: number; sleep?: (ms: number) => Promise<void> };
  /** Sampling temperature of the user simulator and the judge: upstream's models.yaml default 0.0. */
  temperature?: number;
}

/** The wall clock as upstream reads it (`datetime.now().timestamp()`), made strictly increasing so order ids never repeat. */
export function wallClock(): Clock {
  let last = 0;
  return {
    now() {
      const t = Date.now() / 1000;
      last = t > last ? t : last + 1e-6;
      return last;
    },
  };
}

/** An assistant message's text as upstream has it: the content without the reasoning (think blocks). */
export function visibleContent(text: string): string {
  return text.includes("<think>") ? visibleReply(text).replace(/^\s+/, "") : text;
}

/** The task's world as the engine's ToolEnvironment: Python-exact texts, the error flag of Environment.get_response. */
export function vitaToolEnvironment(dataset: VitaDataset, task: VitaTask, clock: Clock): ToolEnvironment {
  const world = createWorld(dataset.domainString, task.environment, languageOf(dataset.lang), clock);
  return {
    execute(name, argumentsJson): ToolOutcome {
      let args: PyValue;
      try {
        args = pyFromJsonText(argumentsJson);
      } catch {
        // The act parser hands over JSON; a call that is not would have failed upstream's json.loads before the tool.
        return { content: `Error: the arguments of ${name} are not JSON`, isError: true };
      }
      try {
        const { content, error } = world.call(name, args);
        return { content, isError: error };
      } catch (e) {
        // World.call answers every Python error itself: anything else is a fault of the port, not of the policy.
        throw new EnvironmentFailure("TOOL_CRASHED", `${name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    snapshot: () => ({ state_hash: world.stateHash() }),
  };
}

/** The user simulator's request: its system prompt, the greeting, then the conversation with roles flipped. */
export function userSimulatorMessages(userSystem: string, greet: string, agentSide: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [
    { role: "system", content: userSystem },
    { role: "user", content: greet },
  ];
  for (const m of agentSide) {
    if (m.role === "user") out.push({ role: "assistant", content: m.content });
    else if (m.role === "assistant" && !m.tool_calls?.length) out.push({ role: "user", content: visibleContent(m.content) });
  }
  return out;
}

/** The trajectory the judge reads: the greeting, then every message after the system prompt. */
export function judgeMessages(greet: string, messages: readonly ChatMessage[]): JudgeMessage[] {
  const out: JudgeMessage[] = [{ role: "assistant", content: greet }];
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "assistant") {
      const toolCalls = (m.tool_calls ?? []).map((c) => {
        let args: PyValue;
        try {
          args = pyFromJsonText(c.function.arguments);
        } catch {
          args = c.function.arguments;
        }
        return { name: c.function.name, arguments: args };
      });
      out.push({ role: "assistant", content: visibleContent(m.content), ...(toolCalls.length ? { toolCalls } : {}) });
    } else out.push({ role: m.role, content: m.content });
  }
  return out;
}

/**
 * Where each judge message's agent step is (persist.ts places a verdict on act step `step` of user turn `userTurn`):
 * index i of the judge's trajectory → the act record that wrote it, for assistant messages after the greeting.
 */
function agentSteps(records: readonly TurnRecord[]): { userTurn: number; step: number }[] {
  const perTurn = new Map<number, number>();
  const out: { userTurn: number; step: number }[] = [];
  for (const r of records) {
    if (r.role !== "act") continue;
    const step = perTurn.get(r.userTurn) ?? 0;
    perTurn.set(r.userTurn, step + 1);
    // A failed generation appends no message.
    if (r.error?.code !== "GENERATION_FAILED") out.push({ userTurn: r.userTurn, step });
  }
  return out;
}

/** The rubric verdicts as the trajectory shows them, each on the last agent step of the window that decided it. */
function rubricVerdicts(score: TrajectoryScore, judged: readonly JudgeMessage[], records: readonly TurnRecord[]): ItemVerdict[] {
  const steps = agentSteps(records);
  // Judge index → the k-th assistant message after the greeting.
  const assistantAt = new Map<number, number>();
  let k = 0;
  judged.forEach((m, i) => {
    if (i > 0 && m.role === "assistant") assistantAt.set(i, k++);
  });
  return score.rubrics.map((r) => {
    const w = r.window !== undefined ? score.windows[r.window - 1] : undefined;
    let place: { userTurn: number; step: number } | undefined;
    if (w) {
      for (let i = w.last - 1; i >= w.first - 1 && !place; i--) {
        const a = assistantAt.get(i);
        if (a !== undefined) place = steps[a];
      }
    }
    return {
      checklist: 0,
      userTurn: place?.userTurn ?? 0,
      // -1: no agent step to sit on (shown with the episode's verdicts).
      step: place?.step ?? -1,
      itemId: r.key,
      question: r.rubric,
      weight: 1,
      required: true,
      passed: r.met,
      source: "judge",
      analysis: {
        justification: r.justification,
        window: w ? `${w.window} of ${w.total} (messages ${w.first}–${w.last})` : "not evaluated by any window",
      },
    };
  });
}

/** One judge call with the run's limits; a call that keeps failing throws (the episode's judge error). */
function judgeCall(client: ChatClient, opts: VitaEpisodeOptions) {
  const sleep = opts.judge.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return async ({ system, user }: { system: string; user: string }): Promise<string> => {
    let last: unknown;
    for (let attempt = 0; attempt < Math.max(1, opts.judge.attempts); attempt++) {
      try {
        const reply = await completeWithin(client, opts.judge.timeoutMs, {
          messages: [
            { role: "system", content: system },
            { role: "user", content: user },
          ],
          temperature: opts.temperature ?? 0,
          maxTokens: opts.judge.maxTokens,
        });
        return reply.text;
      } catch (e) {
        last = e;
        if (attempt + 1 < opts.judge.attempts) await sleep(Math.min(2 ** (attempt + 1), 30) * 1000);
      }
    }
    throw new JudgeCallError(last instanceof Error ? last.message : String(last));
  };
}

class JudgeCallError extends Error {}

const clip = (s: string, n = 2000) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The engine instance of one task (`vitabench:<domain>/<lang>/<task id>`). */
export function vitaInstance(dataset: VitaDataset, task: VitaTask, opts: VitaEpisodeOptions): TaskInstance {
  const language = promptLanguage(dataset.lang);
  const time = (task.environment.get("time") ?? "") as string;
  const greet = greeting(language);
  const userSystem = userSystemPrompt(language, task.userProfile, task.instructions);
  const dataSource = `vitabench:${dataset.domain}/${dataset.lang}`;
  return {
    id: `${dataSource}/${task.id}`,
    dataSource,
    messages: [{ role: "system", content: agentSystemPrompt(language, time) }],
    tools: vitaToolSchemas(dataset.domainString, dataset.lang),
    followUpUserMessages: [],
    checklists: [],
    environment: { create: () => vitaToolEnvironment(dataset, task, (opts.clock ?? wallClock)()) },
    liveUser: {
      async next(client, messages, { signal }) {
        const { text } = await client.complete({ messages: userSimulatorMessages(userSystem, greet, messages), temperature: opts.temperature ?? 0, signal });
        return { text, ...(USER_STOP_TOKENS.some((t) => text.includes(t)) ? { stop: "user_stop" } : {}) };
      },
    },
    agentStopTokens: [AGENT_STOP_TOKEN],
    maxEpisodeSteps: VITA_MAX_STEPS,
    allowRepeatedUserMessages: true,
    async scoreEpisode({ messages, records, terminationReason, judge }): Promise<EpisodeScore> {
      const base = { taskId: task.id, dataset: dataset.ref, termination: terminationReason };
      // An episode that could not run is an error whatever it scores (outcome.ts): no judge call is spent on it.
      if (errorKindOfTermination(terminationReason) !== null) return { reward: 0, verdicts: [], detail: base };
      const upstreamEnding = JUDGED.has(terminationReason) ? terminationReason : terminationReason === "empty_agent_reply" ? "invalid_agent_message" : "max_steps";
      if (!JUDGED.has(terminationReason)) {
        const note =
          terminationReason === "max_steps" || terminationReason === "empty_agent_reply"
            ? `Simulation terminated prematurely. Termination reason: ${upstreamEnding}`
            : `ended as ${terminationReason} before upstream's own end (a limit of this run or an act the engine could not parse): scored 0 as upstream scores a premature end`;
        return { reward: 0, success: false, verdicts: [], detail: { ...base, upstreamTermination: upstreamEnding, note } };
      }
      if (!judge) return { reward: 0, verdicts: [], error: "VitaBench needs a judge: set reward.judge to a model on an OpenAI-compatible node", errorKind: "judge", detail: base };
      const judged = judgeMessages(greet, messages);
      const windows: { window: number; reply: string }[] = [];
      const call = judgeCall(judge, opts);
      try {
        const score = await scoreTrajectory({
          task,
          termination: upstreamEnding,
          messages: judged,
          language: languageOf(dataset.lang),
          template: vitaPrompt("sliding_window_eval_template", language),
          judge: async (p) => {
            const reply = await call(p);
            windows.push({ window: p.window, reply });
            return reply;
          },
        });
        const detail = {
          ...base,
          upstreamTermination: upstreamEnding,
          reward: score.reward,
          partial: score.partial,
          ...(score.note ? { note: score.note } : {}),
          windows: score.windows.map((w) => ({ window: w.window, total: w.total, first: w.first, last: w.last, reply: w.reply })),
          failing: score.rubrics.filter((r) => !r.met).map((r) => ({ key: r.key, rubric: r.rubric, justification: r.justification })),
        };
        return { reward: score.reward, success: score.reward === 1, verdicts: rubricVerdicts(score, judged, records), detail };
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        const failed = e instanceof JudgeCallError ? `the judge call failed: ${e.message}` : `${pyErrorName(e)}: ${e.message}${"raw" in e ? ` — reply: ${clip(String((e as { raw: unknown }).raw), 500)}` : ""}`;
        // A task whose rubric list is empty (upstream divides by zero) is the scorer's problem, not the judge's.
        const errorKind = pyErrorName(e) === "ZeroDivisionError" ? "scoring" : "judge";
        return { reward: 0, verdicts: [], error: failed, errorKind, detail: { ...base, upstreamTermination: upstreamEnding, judgeError: failed, windows } };
      }
    },
  };
}
