/**
 * Test-time rehearsal (paper §4.3; the reference has no code for it, envace-method.md §7). Our design,
 * documented in docs/ARCHITECTURE.md (*Deliberate differences from the reference*):
 * 1. N PRIVATE ATTEMPTS from the task's public context, in the policy's own rehearsed world: the rehearse
 *    paradigm without shadow execution, the policy imagining every tool response AND every later user
 *    turn (it plays the user from what the agent itself can see). A private attempt never reaches the
 *    task's environment, an external tool simulator, the user simulator or the judge, and never sees
 *    hidden task data (scripted follow-up messages, checklists, the reference conversation and the
 *    few-shot examples taken from it, the end-of-episode scorer).
 *    parallel: the N attempts are independent; sequential: attempt n is conditioned on every earlier
 *    (condensed trajectory, feedback) pair.
 * 2. FEEDBACK after each attempt: the policy assesses its condensed transcript ("Assessment: …" and
 *    "Suggestion: …").
 * 3. MEMORY: the policy condenses all attempts and their feedback into a short rehearsal memory.
 * 4. ONE COMMITTED EXECUTION — the only one that acts on the real environment (or, for a task without
 *    one, in the configured paradigm), meets the real user and is judged — conditioned on the memory.
 * Each phase samples with its own settings (run config testTime.sampling). Transcripts reaching the
 * assessment and memory prompts are condensed (condense.ts): thinking first, actions never.
 */
import type { Paradigm, TestTimeMode } from "../../contracts/run-config";
import type { TestTimeRecord } from "../../contracts/test-time";
import { condenseTranscript, type CondenseOptions } from "./condense";
import type { ChatClient, ChatMessage, GenerateResult, PolicyClient, SamplingOptions } from "./io";
import { stripThink, visibleText } from "./parsers";
import type { JudgeTurnHook, RolloutClients, RolloutDriverConfig, RolloutJob, RolloutResult } from "./rollout";
import { runOneRollout } from "./rollout";
import type { LiveUser, TaskInstance } from "./types";

export interface TestTimePhaseSampling {
  /** Act role: private attempts and the committed execution. */
  act: SamplingOptions;
  /** Rehearse role: imagined tool responses and imagined user turns of private attempts. */
  rehearse: SamplingOptions;
  assessment: SamplingOptions;
  memory: SamplingOptions;
}

export interface TestTimeOptions {
  attempts: number;
  mode: TestTimeMode;
  sampling: TestTimePhaseSampling;
  /** Token bound of the transcripts one assessment or memory prompt receives (shared among its attempts). */
  transcriptTokens: number;
  /** Thinking kept per assistant message in those transcripts (0 = stripped). */
  thinkingTokens: number;
  /** The policy's token count (its renderer); default ⌈chars / 4⌉. */
  countTokens?: (text: string) => number;
}

/** The policy's feedback on one attempt. */
export interface AttemptFeedback {
  /** The whole reply (thinking removed). */
  text: string;
  assessment: string;
  suggestion: string;
  /** The generation failed: why (the attempt then has no feedback). */
  error?: string;
  /** The reply was cut off (unclosed thinking dropped, or its token limit hit). */
  truncated?: boolean;
}

export interface PrivateAttempt {
  index: number;
  /** The private rollout, with its turns (persisted as a trajectory of phase "private"). */
  result: RolloutResult;
  /** The attempt's conversation after the public initial messages. */
  messages: ChatMessage[];
  /** Its condensed transcript as the assessment saw it. */
  transcript: string;
  feedback: AttemptFeedback;
  /** Prompt + response tokens the attempt cost: its generations, its imagined user turns and its assessment. */
  tokens: number;
}

/** What is stored with the committed trajectory (summary.testTime; schema in contracts/test-time.ts). */
export type { TestTimeRecord };

export interface TestTimeEpisode {
  committed: RolloutResult;
  committedParadigm: Paradigm;
  attempts: PrivateAttempt[];
  record: TestTimeRecord;
  /** Generations outside the rollouts (assessments, memory), for the step's generation health. */
  sideGenerations: { role: "act"; error?: { code: "GENERATION_FAILED"; payload: string } }[];
}

export const ASSESS_SYSTEM_PROMPT =
  "You review a private practice run of an AI assistant. The practice happened in an imagined world: the tool results and the user's later messages were imagined by the assistant itself, not real. Judge whether the assistant served the user's request and used the tools correctly. Answer in two short lines: 'Assessment: …' and 'Suggestion: …' (what to do differently in the real attempt).";
export const MEMORY_SYSTEM_PROMPT =
  "You condense several private practice runs of a task and their reviews into brief notes for the one real attempt that follows: the plan that works, facts about the tools, and mistakes to avoid. The practice runs were imagined: treat their tool results as guesses. Write at most a few lines.";
export const USER_REHEARSAL_PROMPT =
  "You are rehearsing the USER in a private practice conversation with an AI assistant. Write only the user's next message, in the user's voice: ask for what a user of this service would want, answer the assistant's questions plausibly, and do not play the assistant. When the user's request is fully handled, reply with ###STOP###.";
export const USER_STOP = "###STOP###";
export const SEQUENTIAL_NOTE_HEADER = "Your earlier private practice runs of this task (imagined, not real), with their reviews:";
export const MEMORY_NOTE_HEADER = "Notes from your private rehearsal of this task (practice in an imagined world; its tool results were guesses):";

/** A chat client private attempts are given in place of the user simulator: calling it is a defect. */
export const sealedChatClient: ChatClient = {
  async complete() {
    throw new Error("a private test-time attempt tried to contact an external model");
  },
};

const noJudge: JudgeTurnHook = async ({ state }) => ({
  userTurnIndex: state.userTurnIndex,
  reward: 0,
  checklistScores: [],
  stop: false,
  verdicts: [],
  judgeCalls: 0,
  judgeFailures: 0,
});

const tokensOf = (out: GenerateResult) => out.promptTokens.length + out.tokens.length;

/** Put a note at the START of the instance's system message (or a system message of its own): a small context trims a system message from its end. */
export function withSystemNote(instance: TaskInstance, note: string): TaskInstance {
  const messages = instance.messages.map((m) => ({ ...m }));
  const sys = messages.find((m) => m.role === "system");
  if (sys) sys.content = `${note}\n\n${sys.content}`;
  else messages.unshift({ role: "system", content: note });
  return { ...instance, messages };
}

/**
 * The user's side of a conversation for the rehearsed user: the agent's visible replies become "user"
 * messages and the user's own become "assistant" ones; tool calls, tool results and thinking are never
 * shown (a user does not see them). The agent's system message is public to the policy, so it may frame
 * the service.
 */
export function userRehearsalPrompt(conversation: ChatMessage[]): ChatMessage[] {
  const agentSystem = conversation.find((m) => m.role === "system")?.content.trim();
  const system = agentSystem ? `${USER_REHEARSAL_PROMPT}\n\nThe assistant works under these instructions:\n${agentSystem}` : USER_REHEARSAL_PROMPT;
  const flipped: ChatMessage[] = [];
  for (const m of conversation) {
    if (m.role === "user") flipped.push({ role: "assistant", content: m.content });
    else if (m.role === "assistant") {
      const visible = stripThink(m.content).trim();
      if (visible) flipped.push({ role: "user", content: visible });
    }
  }
  if (flipped.length === 0 || flipped[flipped.length - 1]!.role !== "user") {
    flipped.push({ role: "user", content: flipped.length === 0 ? "(The assistant is waiting for your first message.)" : "(The assistant is waiting for your reply.)" });
  }
  return [{ role: "system", content: system }, ...flipped];
}

/** The policy playing the user (counted into `spent`). The real user simulator's client is ignored: it is never called. */
export function rehearsedUser(policy: PolicyClient, sampling: SamplingOptions, spent: { tokens: number }): LiveUser {
  return {
    async next(_client, messages) {
      const out = await policy.generate({ role: "rehearse", messages: userRehearsalPrompt(messages), sampling });
      spent.tokens += tokensOf(out);
      const text = stripThink(out.text).trim();
      if (!text.includes(USER_STOP)) return { text };
      const rest = text.split(USER_STOP).join("").trim();
      return { text: rest || "Thank you, that is all.", stop: "user_stop" };
    },
  };
}

/**
 * What a private attempt may see of a task: its public initial messages (system prompt, any opening user
 * message) and its tools. Everything hidden is removed, every external party replaced by the policy.
 */
export function privateInstance(instance: TaskInstance, user: LiveUser): TaskInstance {
  return {
    id: instance.id,
    dataSource: instance.dataSource,
    messages: instance.messages.map((m) => ({ ...m })),
    tools: instance.tools,
    // Later user turns are imagined (rehearsedUser), never replayed from the task's script.
    followUpUserMessages: [],
    checklists: [],
    // The reference conversation and its few-shot pairs are the task's gold answer.
    reference: undefined,
    fewShot: [],
    environment: undefined,
    rehearsePromptStyle: instance.rehearsePromptStyle,
    liveUser: user,
    // Private attempts are not scored: a score would need the task's hidden checks.
    scoreEpisode: () => ({ reward: 0, verdicts: [], detail: { private: true } }),
  };
}

/** The public statement of the task for review prompts: the opening user messages, if the task has any. */
function publicRequest(instance: TaskInstance): string {
  const users = instance.messages.filter((m) => m.role === "user").map((m) => m.content.trim()).filter(Boolean);
  return users.length ? users.join("\n") : "(not known in advance: the user states it in the conversation)";
}

/** "Assessment: …" and "Suggestion: …" out of a feedback reply (whatever the layout, the whole text is kept too). */
export function parseFeedback(text: string): Pick<AttemptFeedback, "assessment" | "suggestion"> {
  const a = /assessment\s*:\s*([\s\S]*?)(?=suggestion\s*:|$)/i.exec(text);
  const s = /suggestion\s*:\s*([\s\S]*)$/i.exec(text);
  return { assessment: (a?.[1] ?? (s ? "" : text)).trim(), suggestion: (s?.[1] ?? "").trim() };
}

/**
 * A review prompt (assessment, memory): asked with thinking off, since what it writes goes into later prompts
 * whole and its budget is small; a reply that still ends inside a thought loses that part (`truncated`),
 * as does one cut at the token limit (flagged too).
 */
async function ask(policy: PolicyClient, system: string, user: string, sampling: SamplingOptions): Promise<{ text: string; tokens: number; truncated: boolean } | { error: string }> {
  try {
    const out = await policy.generate({ role: "act", messages: [{ role: "system", content: system }, { role: "user", content: user }], sampling, thinking: false });
    const visible = visibleText(out.text);
    return { text: visible.text.trim(), tokens: tokensOf(out), truncated: visible.unclosed || out.finishReason === "length" };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** One attempt as later prompts see it: its condensed transcript (within `tokens`) and its feedback. */
function attemptDigest(a: PrivateAttempt, tokens: number, condense: Omit<CondenseOptions, "maxTokens">): string {
  const transcript = condenseTranscript(a.messages, { ...condense, maxTokens: tokens }).text;
  const feedback = a.feedback.error ? "(no review: it failed)" : `Assessment: ${a.feedback.assessment || "—"}\nSuggestion: ${a.feedback.suggestion || "—"}`;
  return `Practice run ${a.index + 1} (ended: ${a.result.terminationReason}):\n${transcript}\n${feedback}`;
}

/**
 * Test-time rehearsal of one job: N private attempts, feedback, memory, then one committed execution with
 * the driver's clients and the judge hook. `driver` is the committed execution's driver config (its
 * sampling is replaced by the phases' own).
 */
export async function runTestTimeRehearsal(
  job: RolloutJob,
  clients: RolloutClients,
  driver: RolloutDriverConfig,
  judgeHook: JudgeTurnHook,
  options: TestTimeOptions,
): Promise<TestTimeEpisode> {
  const s = options.sampling;
  const condense = { thinkingTokens: options.thinkingTokens, countTokens: options.countTokens };
  const request = publicRequest(job.instance);
  const side: TestTimeEpisode["sideGenerations"] = [];
  const privateDriver: RolloutDriverConfig = {
    ...driver,
    options: { ...driver.options, paradigm: "rehearse", shadowExecution: false, fidelityProbe: false },
    sampling: { act: s.act, rehearse: s.rehearse },
  };
  // Only the policy: no tool simulator, and a sealed client where the user simulator would be.
  const privateClients: RolloutClients = { policy: clients.policy, userSimulator: sealedChatClient };

  const runAttempt = async (index: number, earlier: PrivateAttempt[]): Promise<PrivateAttempt> => {
    const spent = { tokens: 0 };
    let instance = privateInstance(job.instance, rehearsedUser(clients.policy, s.rehearse, spent));
    if (earlier.length) {
      const share = Math.max(1, Math.floor(options.transcriptTokens / earlier.length));
      instance = withSystemNote(instance, `${SEQUENTIAL_NOTE_HEADER}\n\n${earlier.map((a) => attemptDigest(a, share, condense)).join("\n\n")}`);
    }
    const result = await runOneRollout({ ...job, instance, rolloutId: `${job.rolloutId}:private${index}` }, privateClients, privateDriver, noJudge);
    const messages = result.state.messages.slice(instance.messages.length);
    const condensed = condenseTranscript(messages, { ...condense, maxTokens: options.transcriptTokens });
    const reply = await ask(
      clients.policy,
      ASSESS_SYSTEM_PROMPT,
      `Request:\n${request}\n\nPractice run (ended: ${result.terminationReason}):\n${condensed.text}`,
      s.assessment,
    );
    let feedback: AttemptFeedback;
    if ("error" in reply) {
      feedback = { text: "", assessment: "", suggestion: "", error: reply.error };
      side.push({ role: "act", error: { code: "GENERATION_FAILED", payload: reply.error } });
    } else {
      feedback = { text: reply.text, ...parseFeedback(reply.text), ...(reply.truncated ? { truncated: true } : {}) };
      spent.tokens += reply.tokens;
      side.push({ role: "act" });
    }
    for (const r of result.state.records) spent.tokens += r.promptTokenCount + r.responseTokenCount;
    return { index, result, messages, transcript: condensed.text, feedback, tokens: spent.tokens };
  };

  const n = Math.max(1, options.attempts);
  const attempts: PrivateAttempt[] = [];
  if (options.mode === "parallel") attempts.push(...(await Promise.all(Array.from({ length: n }, (_, i) => runAttempt(i, [])))));
  else for (let i = 0; i < n; i++) attempts.push(await runAttempt(i, [...attempts]));

  const share = Math.max(1, Math.floor(options.transcriptTokens / attempts.length));
  const memoryReply = await ask(
    clients.policy,
    MEMORY_SYSTEM_PROMPT,
    `Request:\n${request}\n\n${attempts.map((a) => attemptDigest(a, share, condense)).join("\n\n")}`,
    s.memory,
  );
  const memory = "error" in memoryReply ? "" : memoryReply.text;
  side.push("error" in memoryReply ? { role: "act", error: { code: "GENERATION_FAILED", payload: memoryReply.error } } : { role: "act" });

  const committedParadigm: Paradigm = job.instance.environment ? "environment" : driver.options.paradigm;
  const committedDriver: RolloutDriverConfig = {
    ...driver,
    options: { ...driver.options, paradigm: committedParadigm, shadowExecution: committedParadigm === "rehearse" && driver.options.shadowExecution },
    sampling: { act: s.act, rehearse: s.rehearse },
  };
  const committedInstance = memory ? withSystemNote(job.instance, `${MEMORY_NOTE_HEADER}\n${memory}`) : job.instance;
  const committed = await runOneRollout({ ...job, instance: committedInstance }, clients, committedDriver, judgeHook);

  const privateTokens = attempts.reduce((sum, a) => sum + a.tokens, 0) + ("error" in memoryReply ? 0 : memoryReply.tokens);
  const record: TestTimeRecord = {
    mode: options.mode,
    attempts: attempts.map((a) => ({
      index: a.index,
      terminationReason: a.result.terminationReason,
      transcript: a.transcript,
      assessment: a.feedback.assessment,
      suggestion: a.feedback.suggestion,
      feedback: a.feedback.text,
      ...(a.feedback.error ? { feedbackError: a.feedback.error } : {}),
      ...(a.feedback.truncated ? { feedbackTruncated: true } : {}),
      tokens: a.tokens,
    })),
    memory,
    ...("error" in memoryReply ? { memoryError: memoryReply.error } : {}),
    ...(!("error" in memoryReply) && memoryReply.truncated ? { memoryTruncated: true } : {}),
    privateTokens,
    committedParadigm,
    sampling: s,
  };
  return { committed, committedParadigm, attempts, record, sideGenerations: side };
}
