/**
 * Upstream's default `trajectory` evaluation (vita/evaluator/evaluator_traj.py TrajectoryEvaluator.calculate_reward
 * @ 96f3b85): rubrics (each expected state's rubrics, then the overall rubrics, de-duplicated), the judge over
 * sliding windows of 10 messages overlapping by 2 (one window when there are ≤ 10), its system prompt
 * (`sliding_window_eval_template` with env_info as a Python dict repr) and user prompt rendered exactly, the rubric
 * states carried from window to window, reward 1 only when every rubric is met, the met share beside it.
 *
 * Judge replies are read as upstream reads them: json.loads, else json_repair 0.52.5 (json-repair.ts). Where upstream
 * raises (nothing found in the reply, a reply that is not a list of objects, a meetExpectation pydantic refuses), the
 * port reports a judge failure with the raw reply kept instead of re-running the whole task (upstream's run_task
 * retries, then drops the task).
 */
import { formatNamed } from "../../../lib/python/builtins";
import { PyDict, pyRepr, pyStr, pyTruthy, pyTypeName, type PyValue } from "../../../lib/python/values";
import { PyInt, pyJsonDumps } from "../../../lib/python/json";
import { readJudgeReply } from "./json-repair";
import type { VitaTask } from "./data";
import { weekday } from "../../../lib/vitabench/prompts";
import type { Language } from "./world";

export interface JudgeMessage {
  role: "user" | "assistant" | "tool";
  content: string | null;
  toolCalls?: { name: string; arguments: PyValue }[];
}

export interface RubricState {
  rubric: string;
  /** As the judge gave it (upstream stores whatever value the reply holds). */
  justification: PyValue;
  meetExpectation: PyValue;
  /** The window whose reply last set this rubric (1-based); absent: not evaluated yet. */
  window?: number;
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

/** A Python value as lib/python's json.dumps takes it (dict → Map, int → PyInt). */
function dumpable(v: PyValue): unknown {
  if (v instanceof PyDict) return new Map(v.entries().map(([k, x]) => [typeof k === "string" ? k : pyStr(k), dumpable(x)]));
  if (typeof v === "bigint") return new PyInt(Number(v), v.toString());
  if (Array.isArray(v)) return v.map(dumpable);
  return v;
}

/** _format_current_rubrics: json.dumps(list, ensure_ascii=False, indent=2) of the rubric states as stored. */
export function formatRubrics(states: Map<string, RubricState>): string {
  const list = [...states].map(([key, s]) => new Map<string, unknown>([
    ["rubric_idx", key],
    ["rubric", s.rubric],
    ["justification", dumpable(s.justification)],
    ["meetExpectation", dumpable(s.meetExpectation)],
  ]));
  return pyJsonDumps(list, { indent: 2, ensureAscii: false });
}

export { weekday };

/** The judge prompts of window `idx` (1-based). */
export function windowPrompts(template: string, task: VitaTask, time: string, language: Language, window: readonly JudgeMessage[], idx: number, total: number, start: number, states: Map<string, RubricState>) {
  const envInfo = new PyDict();
  envInfo.set("system_time", time ? `${time} ${weekday(time, language)}` : "");
  envInfo.set("database", []);
  const system = formatNamed(template, { env_info: envInfo, user_instruction: task.instructions, window_idx: BigInt(idx), total_windows: BigInt(total) });
  const user = `\n# Input\n<window_content>\n${formatWindow(window, start)}\n</window_content>\n\n<current_rubrics>\n${formatRubrics(states)}\n</current_rubrics>\n`;
  return { system, user };
}

/**
 * The judge's reply could not be used: upstream raises (the Python exception type is kept) and, as the port does not
 * silently score it, the episode is a judge failure with the raw reply kept.
 */
export class JudgeReplyError extends Error {
  constructor(
    readonly window: number,
    readonly raw: string,
    /** The exception upstream raises here: JSONDecodeError, AttributeError, TypeError, ValidationError. */
    readonly pyType: string,
    why: string,
  ) {
    super(`judge reply of window ${window}: ${why}`);
  }
}

/** The judge's reply as upstream reads it (json.loads, else json_repair); nothing readable is a JudgeReplyError. */
export function parseJudgeReply(raw: string, window: number): PyValue {
  const read = readJudgeReply(raw);
  if (!read.ok) throw new JudgeReplyError(window, raw, "JSONDecodeError", read.why);
  return read.value;
}

const unhashable = (v: PyValue) => Array.isArray(v) || v instanceof PyDict;

/**
 * Apply one window's verdicts to the states as _evaluate_window does: a falsy reply keeps every state ("Failed to parse
 * LLM response …, keeping current states"); a list updates the rubrics its items name (`rubric_idx` a known key), each
 * item's justification (default "No justification provided") and meetExpectation (default: the state's) taken as given.
 * Anything else raises upstream (iterating a dict's keys or a string's characters, `.get` on a non-dict item).
 */
export function applyVerdicts(states: Map<string, RubricState>, parsed: PyValue, window: number, raw: string): Map<string, RubricState> {
  const next = new Map([...states].map(([k, v]) => [k, { ...v }]));
  if (!pyTruthy(parsed)) return next;
  if (!Array.isArray(parsed)) {
    const pyType = parsed instanceof PyDict || typeof parsed === "string" ? "AttributeError" : "TypeError";
    throw new JudgeReplyError(window, raw, pyType, `the reply is ${pyTypeName(parsed)}, not a list of rubric verdicts`);
  }
  for (const item of parsed) {
    if (!(item instanceof PyDict)) throw new JudgeReplyError(window, raw, "AttributeError", `a verdict is ${pyTypeName(item)}, not an object`);
    const idx = item.get("rubric_idx") ?? null;
    if (!pyTruthy(idx)) continue;
    if (unhashable(idx)) throw new JudgeReplyError(window, raw, "TypeError", `rubric_idx ${pyRepr(idx)} is unhashable`);
    if (typeof idx !== "string" || !next.has(idx)) continue;
    const s = next.get(idx)!;
    s.justification = item.has("justification") ? item.get("justification")! : "No justification provided";
    if (item.has("meetExpectation")) s.meetExpectation = item.get("meetExpectation")!;
    s.window = window;
  }
  return next;
}

/** NLRubricCheck(met=…, justification=…) refused a value: upstream raises a pydantic ValidationError. */
export class MetValidationError extends Error {}

/** pydantic bool of NLRubricCheck.met (lax: true/false, 0/1, "true"/"yes"/…); anything else is a judge failure. */
export function metOf(v: PyValue): boolean {
  if (typeof v === "boolean") return v;
  if (v === 0 || v === 1 || v === 0n || v === 1n) return Number(v) === 1;
  if (typeof v === "string") {
    const t = v.toLowerCase();
    if (["true", "yes", "on", "1", "t", "y"].includes(t)) return true;
    if (["false", "no", "off", "0", "f", "n"].includes(t)) return false;
  }
  throw new MetValidationError(`meetExpectation ${pyRepr(v)} is not a boolean (pydantic refuses it)`);
}

/** The final reward: 1 when every rubric is met (and there is one), the met share beside it. */
export function finalScore(states: Map<string, RubricState>): { reward: number; partial: number; met: boolean[] } {
  const met = [...states.values()].map((s) => {
    const m = metOf(s.meetExpectation);
    // NLRubricCheck.justification is a str: pydantic refuses anything else.
    if (typeof s.justification !== "string") throw new MetValidationError(`justification ${pyRepr(s.justification)} is not a string (pydantic refuses it)`);
    return m;
  });
  if (met.length === 0) throw new Error("no rubric to score (upstream divides by zero)");
  return { reward: met.every(Boolean) ? 1 : 0, partial: met.filter(Boolean).length / met.length, met };
}
