/**
 * The multi-turn inference loop of upstream's `inference_multi_turn_FC`, with scripted user turns
 * (the task's own messages; no LLM user): per turn, the policy is asked for calls again and again —
 * each step's calls run on the task's environment and their results go back to it — until it returns
 * no calls or its output cannot be decoded; after more than MAXIMUM_STEP_LIMIT steps in one turn the
 * task is force-quit (its remaining turns are never played, and the checker fails it).
 */
import type { BfclTask, FunctionDoc } from "./data";
import { createBfclEnvironment, type BfclEnvironmentOptions } from "./world";
import { MAXIMUM_STEP_LIMIT, toolsPerTurn, userMessagesForTurn } from "./tools";

export type BfclMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; calls: string[]; raw?: unknown }
  | { role: "tool"; call: string; content: string };

export interface BfclAgentRequest {
  task: BfclTask;
  turn: number;
  step: number;
  /** The whole conversation so far (user turns, assistant calls, tool results). */
  messages: readonly BfclMessage[];
  /** Functions available at this turn. */
  functions: readonly FunctionDoc[];
}

/**
 * One policy step: the call strings it decoded to (upstream's `decode_execute` output), or `null`
 * when the output could not be decoded (which ends the turn, as upstream).
 */
export interface BfclAgentStep {
  calls: string[] | null;
  /** The raw model output, kept for trajectories. */
  raw?: unknown;
}

export type BfclAgent = (request: BfclAgentRequest) => Promise<BfclAgentStep>;

export interface BfclStepRecord {
  raw?: unknown;
  calls: string[] | null;
  results: string[];
}

export interface BfclEpisode {
  taskId: string;
  turns: { userMessages: { role: string; content: string }[]; revealed: string[]; steps: BfclStepRecord[] }[];
  messages: BfclMessage[];
  forceQuit: boolean;
  /** Decoded calls per turn per step, empty/undecodable steps left out: the checker's input. */
  modelTurns: string[][][];
}

/** Upstream's `is_empty_execute_response`. */
export const isEmptyCalls = (calls: readonly string[]) => calls.length === 0 || (calls.length === 1 && calls[0].length === 0);

export interface RunEpisodeOptions extends BfclEnvironmentOptions {
  maxSteps?: number;
}

export async function runBfclEpisode(task: BfclTask, agent: BfclAgent, opts: RunEpisodeOptions = {}): Promise<BfclEpisode> {
  const maxSteps = opts.maxSteps ?? MAXIMUM_STEP_LIMIT;
  const env = createBfclEnvironment(task, opts);
  const tools = toolsPerTurn(task, opts.dataDir);
  const messages: BfclMessage[] = [];
  const episode: BfclEpisode = { taskId: task.id, turns: [], messages, forceQuit: false, modelTurns: [] };

  for (let turn = 0; turn < task.question.length; turn++) {
    const userMessages = userMessagesForTurn(task, turn);
    for (const m of userMessages) messages.push({ role: "user", content: m.content });
    const record = { userMessages, revealed: tools[turn].revealed.map((f) => f.name), steps: [] as BfclStepRecord[] };
    const decodedSteps: string[][] = [];
    episode.turns.push(record);

    for (let step = 0; ; step++) {
      const reply = await agent({ task, turn, step, messages, functions: tools[turn].functions });
      const calls = reply.calls;
      messages.push({ role: "assistant", calls: calls ?? [], raw: reply.raw });
      if (calls === null || isEmptyCalls(calls)) {
        record.steps.push({ raw: reply.raw, calls, results: [] });
        break;
      }
      const results = env.execute(calls);
      record.steps.push({ raw: reply.raw, calls, results });
      decodedSteps.push(calls);
      calls.forEach((call, i) => messages.push({ role: "tool", call, content: results[i] }));
      if (step + 1 > maxSteps) {
        episode.forceQuit = true;
        break;
      }
    }
    episode.modelTurns.push(decodedSteps);
    if (episode.forceQuit) break;
  }
  return episode;
}

/** A policy that emits each turn's ground truth in one step, then stops (the 100 % reference). */
export function groundTruthAgent(): BfclAgent {
  return async ({ task, turn, step }) => ({ calls: step === 0 ? [...task.groundTruth[turn]] : [] });
}
