/**
 * Test-time rehearsal (paper §4.3; not in the reference code, envace-method.md §7). Our design:
 * 1. N private attempts in the policy's own rehearsed world (rehearse paradigm, no real calls),
 *    either in parallel (independent) or sequentially (attempt n sees every earlier attempt and its
 *    feedback in its system message);
 * 2. after each attempt the policy writes a self-assessment (what went right or wrong + a suggestion);
 * 3. the policy condenses all attempts and assessments into a short rehearsal memory;
 * 4. one committed execution against the real environment (or the configured paradigm when the task
 *    has none), conditioned on the memory through the system message, is judged and reported.
 */
import type { Paradigm } from "../../contracts/run-config";
import type { PolicyClient, SamplingOptions } from "./io";
import { stripThink } from "./parsers";
import { serializeHistory } from "./prompts";
import type { JudgeTurnHook, RolloutClients, RolloutDriverConfig, RolloutJob, RolloutResult } from "./rollout";
import { runOneRollout } from "./rollout";
import type { TaskInstance } from "./types";

export interface TestTimeOptions {
  attempts: number;
  mode: "parallel" | "sequential";
  /** Sampling for assessments and the memory summary. */
  sampling: SamplingOptions;
  /** Character cap of an attempt transcript inside prompts (default 1500). */
  maxAttemptChars?: number;
  /** Character cap of the memory (default 1200). */
  maxMemoryChars?: number;
}

export interface TestTimeAttempt {
  index: number;
  terminationReason: string;
  /** The attempt's conversation after the initial messages. */
  transcript: string;
  assessment: string;
}

export interface TestTimeRecord {
  mode: "parallel" | "sequential";
  attempts: TestTimeAttempt[];
  memory: string;
}

export const ASSESS_SYSTEM_PROMPT =
  "You review a private practice run of an AI assistant in a simulated tool environment. Judge whether it fulfilled the user's request and how. Answer in two short lines: 'Assessment: …' and 'Suggestion: …'.";
export const MEMORY_SYSTEM_PROMPT =
  "You condense several practice runs and their reviews into brief notes for a final real attempt: facts learned about the tools, the plan that works, and mistakes to avoid. Write at most a few lines.";

const noJudge: JudgeTurnHook = async ({ state }) => ({
  userTurnIndex: state.userTurnIndex,
  reward: 0,
  checklistScores: [],
  stop: false,
  verdicts: [],
  judgeCalls: 0,
  judgeFailures: 0,
});

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Add a note to the instance's system message (or prepend one). */
export function withSystemNote(instance: TaskInstance, note: string): TaskInstance {
  const messages = instance.messages.map((m) => ({ ...m }));
  const sys = messages.find((m) => m.role === "system");
  if (sys) sys.content = `${sys.content}\n\n${note}`;
  else messages.unshift({ role: "system", content: note });
  return { ...instance, messages };
}

async function ask(policy: PolicyClient, system: string, user: string, sampling: SamplingOptions): Promise<string> {
  try {
    const out = await policy.generate({ role: "act", messages: [{ role: "system", content: system }, { role: "user", content: user }], sampling });
    return stripThink(out.text).trim();
  } catch (e) {
    return `(unavailable: ${e instanceof Error ? e.message : String(e)})`;
  }
}

function attemptDigest(a: TestTimeAttempt): string {
  return `Attempt ${a.index + 1} (${a.terminationReason}):\n${a.transcript}\n${a.assessment}`;
}

export async function runTestTimeRehearsal(
  job: RolloutJob,
  clients: RolloutClients,
  driver: RolloutDriverConfig,
  judgeHook: JudgeTurnHook,
  options: TestTimeOptions,
): Promise<{ committed: RolloutResult; committedParadigm: Paradigm; record: TestTimeRecord }> {
  const maxChars = options.maxAttemptChars ?? 1500;
  const privateDriver: RolloutDriverConfig = { ...driver, options: { ...driver.options, paradigm: "rehearse", shadowExecution: false } };
  const initialCount = job.instance.messages.length;

  const runAttempt = async (index: number, earlier: TestTimeAttempt[]): Promise<TestTimeAttempt> => {
    const instance = earlier.length
      ? withSystemNote(job.instance, `Earlier practice runs:\n${earlier.map(attemptDigest).join("\n\n")}`)
      : job.instance;
    const r = await runOneRollout({ ...job, instance, rolloutId: `${job.rolloutId}:tt${index}` }, clients, privateDriver, noJudge);
    const transcript = clip(serializeHistory(r.state.messages.slice(instance.messages.length)), maxChars);
    const request = serializeHistory(job.instance.messages.slice(0, initialCount));
    const assessment = await ask(clients.policy, ASSESS_SYSTEM_PROMPT, `Request:\n${request}\n\nPractice run:\n${transcript}`, options.sampling);
    return { index, terminationReason: r.terminationReason, transcript, assessment };
  };

  const attempts: TestTimeAttempt[] = [];
  const n = Math.max(1, options.attempts);
  if (options.mode === "parallel") {
    attempts.push(...(await Promise.all(Array.from({ length: n }, (_, i) => runAttempt(i, [])))));
  } else {
    for (let i = 0; i < n; i++) attempts.push(await runAttempt(i, [...attempts]));
  }

  const memory = clip(
    await ask(clients.policy, MEMORY_SYSTEM_PROMPT, attempts.map(attemptDigest).join("\n\n"), options.sampling),
    options.maxMemoryChars ?? 1200,
  );
  const committedParadigm: Paradigm = job.instance.environment ? "environment" : driver.options.paradigm;
  const committedDriver: RolloutDriverConfig = {
    ...driver,
    options: { ...driver.options, paradigm: committedParadigm, shadowExecution: committedParadigm === "rehearse" && driver.options.shadowExecution },
  };
  const committedInstance = withSystemNote(job.instance, `Notes from private rehearsal:\n${memory}`);
  const committed = await runOneRollout({ ...job, instance: committedInstance }, clients, committedDriver, judgeHook);
  return { committed, committedParadigm, record: { mode: options.mode, attempts, memory } };
}

