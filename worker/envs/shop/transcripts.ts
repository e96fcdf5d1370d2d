/**
 * Gold training transcripts for warm-start pretraining of the policy on the shop domain.
 *
 * Each row is one generation the engine would request in a `rehearse` rollout: the prompt messages
 * exactly as the engine passes them to `PolicyClient.generate` for that role (driven through the
 * real rollout machine, so they cannot drift), and the gold completion:
 * - act: the gold act output (`<think>…</think>` optional, then newline-delimited tool_call blocks,
 *   or a plain final reply);
 * - rehearse: `\n<execution_result>\n<true environment JSON>\n</execution_result>`. The leading
 *   newline is part of the format the rehearse parser requires (§1.7: newline + tag + newline).
 */
import type { ChatMessage, GenerateResult, ToolSchema } from "../../engine/io";
import { applyEvent, nextNeed, type RolloutOptions, startRollout } from "../../engine/machine";
import { generateShopInstances, type ShopTask } from "./tasks";
import { ShopWorld } from "./world";

export interface TrainingTranscript {
  role: "act" | "rehearse";
  messages: ChatMessage[];
  tools?: ToolSchema[];
  completion: string;
}

/** The rollout options transcripts are produced under (the quickstart preset's caps). */
export const TRANSCRIPT_ROLLOUT_OPTIONS: RolloutOptions = {
  paradigm: "rehearse",
  shadowExecution: false,
  maxAssistantTurns: 30,
  maxUserTurns: 30,
  maxMicroSteps: 200,
  promptBudgetTokens: 1_000_000,
};

export function rehearseCompletion(envJson: string): string {
  return `\n<execution_result>\n${envJson}\n</execution_result>`;
}

function gold(text: string): GenerateResult {
  return { text, promptTokens: [], tokens: [], logprobs: [], finishReason: "stop" };
}

/** Drive one gold episode through the machine, collecting every generation request. */
export function goldEpisodeTranscripts(task: ShopTask, rolloutId = `${task.id}:gold`): TrainingTranscript[] {
  const out: TrainingTranscript[] = [];
  const world = new ShopWorld();
  const actQueue = task.goldActOutputs.flat();
  let state = startRollout(task, TRANSCRIPT_ROLLOUT_OPTIONS, rolloutId);
  for (let guard = 0; guard < 1000; guard++) {
    const need = nextNeed(state);
    if (need.kind === "done") break;
    if (need.kind === "act") {
      const completion = actQueue.shift();
      if (completion === undefined) throw new Error(`gold episode of ${task.id} ran out of act outputs`);
      out.push({ role: "act", messages: structuredClone(need.messages), tools: need.tools, completion });
      state = applyEvent(state, { kind: "act", output: gold(completion) });
    } else if (need.kind === "rehearse") {
      const completion = rehearseCompletion(world.execute(need.call.name, need.call.argumentsJson));
      out.push({ role: "rehearse", messages: structuredClone(need.messages), completion });
      state = applyEvent(state, { kind: "rehearse", output: gold(completion) });
    } else if (need.kind === "judge") {
      state = applyEvent(state, { kind: "judged", stop: false });
    } else {
      throw new Error(`unexpected need ${need.kind} in a rehearse transcript`);
    }
  }
  if (actQueue.length > 0) throw new Error(`gold episode of ${task.id} ended early: ${state.terminationReason}`);
  return out;
}

/**
 * `count` transcript rows (episodes are emitted whole, in order, and the last one is cut at
 * `count`), from train-split shop tasks sampled deterministically from `seed`.
 */
export function generateTrainingTranscripts(
  seed: number,
  count: number,
): Array<{ role: "act" | "rehearse"; messages: ChatMessage[]; tools?: ToolSchema[]; completion: string }> {
  const rows: TrainingTranscript[] = [];
  let batch = 0;
  while (rows.length < count) {
    // Episodes yield 3–6 rows; sample in batches so the seed alone fixes the sequence.
    const tasks = generateShopInstances(seed * 7919 + batch, Math.max(1, Math.ceil((count - rows.length) / 3)), "train");
    for (const task of tasks) {
      for (const row of goldEpisodeTranscripts(task)) {
        if (rows.length >= count) break;
        rows.push(row);
      }
      if (rows.length >= count) break;
    }
    batch++;
  }
  return rows;
}
