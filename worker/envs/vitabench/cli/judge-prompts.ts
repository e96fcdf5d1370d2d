/**
 * npm run -s vita:judge-prompts -- --cases FILE
 * case {"id","task_file","task_id","lang","messages":[…],"replies":[judge reply per window]}
 * out  {"case","window","system","user"} per window, then {"case","final":{"reward","partial","met"}} (or {"error"}).
 */
import { readFileSync } from "node:fs";
import { vitaPrompt } from "../../../../lib/vitabench/prompts";
import { PyDict, pyFromJsonText, type PyValue } from "../../../../lib/python/values";
import { findTask, resolveTaskFile } from "../data";
import { applyVerdicts, finalScore, initialRubrics, parseJudgeReply, slidingWindows, windowPrompts, type JudgeMessage } from "../evaluator";
import { languageOf } from "../index";
import { argValue, casesOf } from "./common";

export function runJudgeCase(line: string): string[] {
  const c = JSON.parse(line) as { id: string; task_file: string; task_id: string; lang: "zh" | "en"; replies: string[] };
  const py = pyFromJsonText(line) as PyDict;
  const messages: JudgeMessage[] = (py.get("messages") as PyDict[]).map((m) => ({
    role: m.get("role") as JudgeMessage["role"],
    content: (m.get("content") ?? null) as string | null,
    toolCalls: ((m.get("tool_calls") ?? []) as PyDict[]).map((t) => ({ name: t.get("name") as string, arguments: (t.get("arguments") ?? new PyDict()) as PyValue })),
  }));
  const task = findTask(resolveTaskFile(c.task_file), c.task_id);
  const language = languageOf(c.lang);
  const template = vitaPrompt("sliding_window_eval_template", language);
  const time = (task.environment.get("time") ?? "") as string;
  const out: string[] = [];
  let states = initialRubrics(task);
  const windows = slidingWindows(messages);
  try {
    windows.forEach((w, i) => {
      const { system, user } = windowPrompts(template, task, time, language, w, i + 1, windows.length, i * 8, states);
      out.push(JSON.stringify({ case: c.id, window: i + 1, system, user }));
      const raw = c.replies[i] ?? "";
      states = applyVerdicts(states, parseJudgeReply(raw, i + 1), i + 1, raw);
    });
    out.push(JSON.stringify({ case: c.id, final: finalScore(states) }));
  } catch (e) {
    out.push(JSON.stringify({ case: c.id, final: { error: e instanceof Error ? e.message : String(e) } }));
  }
  return out;
}

if (process.argv[1]?.endsWith("judge-prompts.ts")) {
  for (const line of casesOf(readFileSync(argValue("--cases"), "utf8"))) for (const o of runJudgeCase(line)) process.stdout.write(o + "\n");
}
