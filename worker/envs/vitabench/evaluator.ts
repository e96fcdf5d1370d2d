/**
 * Upstream's default `trajectory` evaluation (vita/evaluator/evaluator_traj.py TrajectoryEvaluator.calculate_reward
 * @ 96f3b85): rubrics (each expected state's rubrics, then the overall rubrics, de-duplicated), the judge over
 * sliding windows of 10 messages overlapping by 2 (one window when there are ≤ 10), its system prompt
 * (`sliding_window_eval_template` with env_info as a Python dict repr) and user prompt rendered exactly, the rubric
 * states carried from window to window, reward 1 only when every rubric is met, the met share beside it.
 *
 * NOT exact yet: upstream repairs each judge reply with json_repair 0.52.5 before json.loads; this port parses the
 * reply as strict JSON (after the same fenced-block tolerance json_repair has) and reports a reply it cannot parse
 * as a judge failure with the raw reply kept (never a silent 0). See README.md.
 */
import { formatNamed } from "../../../lib/python/builtins";
import { PyDict, pyRepr, pyStr, type PyValue } from "../../../lib/python/values";
import { pyJsonString } from "../../../lib/python/json";
import type { VitaTask } from "./data";
import type { Language } from "./world";

export interface JudgeMessage {
  role: "user" | "assistant" | "tool";
  content: string | null;
  toolCalls?: { name: string; arguments: PyValue }[];
}

export interface RubricState {
  rubric: string;
  justification: string;
  meetExpectation: PyValue;
}

/** _initialize_rubric_states: state rubrics then overall rubrics, first occurrence kept, all unmet. */
export function initialRubrics(task: Pick<VitaTask, "stateRubrics" | "overallRubrics">): Map<string, RubricState> {
  const out = new Map<string, RubricState>();
  const seen = new Set<string>();
  const add = (r: string) => {
    if (seen.has(r)) return;
    seen.add(r);
    out.set(`rubric_${out.size}`, { rubric: r, justification: "Not evaluated yet", meetExpectation: false });
  };
  for (const state of task.stateRubrics) for (const r of state) add(r);
  for (const r of task.overallRubrics ?? []) add(r);
  return out;
}

/** _create_sliding_windows(messages, 10, 2). */
export function slidingWindows<T>(messages: readonly T[], size = 10, overlap = 2): T[][] {
  if (messages.length <= size) return [[...messages]];
  const out: T[][] = [];
  const step = size - overlap;
  for (let i = 0; i < messages.length; i += step) {
    out.push(messages.slice(i, i + size));
    if (i + size >= messages.length) break;
  }
  return out;
}

/** _format_window_content: "[global idx] role: content name(k=repr(v), …).other(…)" for messages with text or calls. */
export function formatWindow(window: readonly JudgeMessage[], start: number): string {
  const lines: string[] = [];
  window.forEach((m, i) => {
    let full = m.content ?? "";
    if (m.role === "assistant" && m.toolCalls?.length) {
      const calls = m.toolCalls.map((c) => {
        const args = c.arguments instanceof PyDict ? c.arguments.entries().map(([k, v]) => `${pyStr(k)}=${pyRepr(v)}`).join(", ") : pyStr(c.arguments);
        return `${c.name}(${args})`;
      });
      full = full ? `${full} ${calls.join(".")}` : calls.join(".");
    }
    if (full) lines.push(`[${start + i + 1}] ${m.role}: ${full}`);
  });
  return lines.join("\n");
}

/** json.dumps(list, ensure_ascii=False, indent=2) of the rubric states (the meetExpectation value as stored). */
export function formatRubrics(states: Map<string, RubricState>): string {
  if (states.size === 0) return "[]";
  const val = (v: PyValue): string => (v === true ? "true" : v === false ? "false" : v === null ? "null" : typeof v === "string" ? pyJsonString(v, false) : pyStr(v));
  const items = [...states].map(
    ([key, s]) =>
      `  {\n    "rubric_idx": ${pyJsonString(key, false)},\n    "rubric": ${pyJsonString(s.rubric, false)},\n    "justification": ${pyJsonString(s.justification, false)},\n    "meetExpectation": ${val(s.meetExpectation)}\n  }`,
  );
  return `[\n${items.join(",\n")}\n]`;
}

const WEEKDAYS: Record<Language, string[]> = {
  english: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
  chinese: ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"],
};

/** utils.get_weekday(time, language) for "%Y-%m-%d %H:%M:%S". */
export function weekday(time: string, language: Language): string {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(time);
  if (!m) throw new Error(`time "${time}" is not %Y-%m-%d %H:%M:%S`);
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return WEEKDAYS[language][(d.getUTCDay() + 6) % 7]!;
}

/** The judge prompts of window `idx` (1-based). */
export function windowPrompts(template: string, task: VitaTask, time: string, language: Language, window: readonly JudgeMessage[], idx: number, total: number, start: number, states: Map<string, RubricState>) {
  const envInfo = new PyDict();
  envInfo.set("system_time", time ? `${time} ${weekday(time, language)}` : "");
  envInfo.set("database", []);
  const system = formatNamed(template, { env_info: envInfo, user_instruction: task.instructions, window_idx: BigInt(idx), total_windows: BigInt(total) });
  const user = `\n# Input\n<window_content>\n${formatWindow(window, start)}\n</window_content>\n\n<current_rubrics>\n${formatRubrics(states)}\n</current_rubrics>\n`;
  return { system, user };
}

export class JudgeReplyError extends Error {
  constructor(
    readonly window: number,
    readonly raw: string,
  ) {
    super(`judge reply of window ${window} is not JSON the port can read`);
  }
}

/** The judge's reply as upstream reads it: a list of {rubric_idx, justification, meetExpectation}. */
export function parseJudgeReply(raw: string, window: number): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(raw);
  for (const text of [raw, fenced?.[1]]) {
    if (text === undefined) continue;
    try {
      return JSON.parse(text);
    } catch {
      // next form
    }
  }
  throw new JudgeReplyError(window, raw);
}

/** Apply one window's verdicts to the states (upstream: only entries whose rubric_idx is a known key). */
export function applyVerdicts(states: Map<string, RubricState>, parsed: unknown, window: number, raw: string): Map<string, RubricState> {
  const next = new Map([...states].map(([k, v]) => [k, { ...v }]));
  if (!parsed) return next; // upstream: "Failed to parse LLM response …, keeping current states"
  if (!Array.isArray(parsed)) throw new JudgeReplyError(window, raw); // upstream iterates a dict's keys and fails on .get
  for (const r of parsed) {
    if (typeof r !== "object" || r === null || Array.isArray(r)) throw new JudgeReplyError(window, raw);
    const rec = r as Record<string, unknown>;
    const idx = rec.rubric_idx;
    if (typeof idx === "string" && idx && next.has(idx)) {
      const s = next.get(idx)!;
      s.justification = typeof rec.justification === "string" ? rec.justification : "justification" in rec ? String(rec.justification) : "No justification provided";
      if ("meetExpectation" in rec) s.meetExpectation = rec.meetExpectation as PyValue;
    }
  }
  return next;
}

/** pydantic bool of NLRubricCheck.met (lax: true/false, 0/1, "true"/"yes"/…); anything else is a judge failure. */
export function metOf(v: PyValue): boolean {
  if (typeof v === "boolean") return v;
  if (v === 0 || v === 1 || v === 0n || v === 1n) return Number(v) === 1;
  if (typeof v === "string") {
    const t = v.toLowerCase();
    if (["true", "yes", "on", "1", "t", "y"].includes(t)) return true;
    if (["false", "no", "off", "0", "f", "n"].includes(t)) return false;
  }
  throw new Error(`meetExpectation ${pyRepr(v)} is not a boolean`);
}

/** The final reward: 1 when every rubric is met (and there is one), the met share beside it. */
export function finalScore(states: Map<string, RubricState>): { reward: number; partial: number; met: boolean[] } {
  const met = [...states.values()].map((s) => metOf(s.meetExpectation));
  if (met.length === 0) throw new Error("no rubric to score (upstream divides by zero)");
  return { reward: met.every(Boolean) ? 1 : 0, partial: met.filter(Boolean).length / met.length, met };
}
