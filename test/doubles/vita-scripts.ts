/**
 * TEST DOUBLES — scripted stand-ins for the three models a VitaBench episode talks to, NOT models: a judge that
 * answers each sliding window with verdicts for the rubrics it is shown, a user simulator that says its lines, and an
 * agent that searches for a store and answers. They tell the three kinds of request apart by their prompts (the
 * judge's user prompt holds <current_rubrics>, the user simulator's system prompt a <persona>, the agent gets tools),
 * so one function can serve them all behind one OpenAI-compatible node (test/doubles/vllm-openai.ts).
 */
import type { ChatClient, ChatMessage, ChatRequest } from "../../worker/engine/io";

type Message = { role: string; content?: unknown };
const text = (m: Message | undefined) => (typeof m?.content === "string" ? m.content : "");

export const isJudgeRequest = (messages: readonly Message[]) => text(messages[1]).includes("<current_rubrics>");
export const isUserSimulatorRequest = (messages: readonly Message[]) => text(messages[0]).includes("<persona>");

/** The rubric keys and texts of a judge request's <current_rubrics> block. */
export function rubricsOf(userPrompt: string): { rubric_idx: string; rubric: string }[] {
  const m = /<current_rubrics>\n([\s\S]*)\n<\/current_rubrics>/.exec(userPrompt);
  return m ? (JSON.parse(m[1]!) as { rubric_idx: string; rubric: string }[]) : [];
}

export interface JudgeScript {
  /** Rubric keys the judge keeps unmet (default none). */
  unmet?: readonly string[];
  /** Replace the reply of a window (1-based) with this text (e.g. a malformed one). */
  replies?: Record<number, string>;
}

/** The judge's reply to one window: every rubric it is shown, met unless listed, in a fenced JSON block as judges write it. */
export function vitaJudgeReply(messages: readonly Message[], script: JudgeScript = {}): string {
  const window = Number(/window (\d+) \(out of/.exec(text(messages[0]))?.[1] ?? /评估第\s*(\d+)/.exec(text(messages[0]))?.[1] ?? "1");
  if (script.replies?.[window] !== undefined) return script.replies[window]!;
  const verdicts = rubricsOf(text(messages[1])).map((r) => ({
    rubric_idx: r.rubric_idx,
    rubric: r.rubric,
    justification: script.unmet?.includes(r.rubric_idx) ? `not done (window ${window})` : `done (window ${window})`,
    meetExpectation: !script.unmet?.includes(r.rubric_idx),
  }));
  return `Window ${window} evaluation:\n\`\`\`json\n${JSON.stringify(verdicts, null, 2)}\n\`\`\``;
}

/** The user simulator's next line: its n-th message (its own earlier ones are the "assistant" messages it is shown). */
export function vitaUserLine(messages: readonly Message[], lines: readonly string[]): string {
  const said = messages.filter((m) => m.role === "assistant").length;
  return lines[said] ?? "Thanks, that is all. ###STOP###";
}

/** A ChatClient judge over vitaJudgeReply, recording every request. */
export function scriptedVitaJudge(script: JudgeScript = {}): ChatClient & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async complete(req) {
      requests.push(req);
      return { text: vitaJudgeReply(req.messages, script) };
    },
  };
}

/** A ChatClient user simulator over vitaUserLine, recording every request. */
export function scriptedVitaUser(lines: readonly string[]): ChatClient & { requests: ChatMessage[][] } {
  const requests: ChatMessage[][] = [];
  return {
    requests,
    async complete(req) {
      requests.push(req.messages);
      return { text: vitaUserLine(req.messages, lines) };
    },
  };
}
