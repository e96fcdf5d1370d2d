/**
 * npm run -s vita:judge-prompts -- --cases FILE
 * case {"id","task_file","task_id","lang","messages":[…],"replies":[judge reply per window]}
 * out  {"case","window","system","user"} per window, then {"case","final":{"reward","partial","met"}} — or
 *      {"case","final":{"error":<the Python exception upstream raises>}} where upstream's evaluation fails.
 */
import { readFileSync } from "node:fs";
import { vitaPrompt } from "../../../../lib/vitabench/prompts";
import { PyDict, pyFromJsonText, type PyValue } from "../../../../lib/python/values";
import { findTask, resolveTaskFile } from "../data";
import type { JudgeMessage } from "../evaluator";
import { languageOf } from "../index";
import { pyErrorName, scoreTrajectory } from "../scoring";
import { argValue, casesOf } from "./common";

export async function runJudgeCase(line: string): Promise<string[]> {
  const c = JSON.parse(line) as { id: string; task_file: string; task_id: string; lang: "zh" | "en"; replies: string[] };
  const py = pyFromJsonText(line) as PyDict;
  const messages: JudgeMessage[] = (py.get("messages") as PyDict[]).map((m) => ({
    role: m.get("role") as JudgeMessage["role"],
    content: (m.get("content") ?? null) as string | null,
    toolCalls: ((m.get("tool_calls") ?? []) as PyDict[]).map((t) => ({ name: t.get("name") as string, arguments: (t.get("arguments") ?? new PyDict()) as PyValue })),
  }));
  const task = findTask(resolveTaskFile(c.task_file), c.task_id);
  const language = languageOf(c.lang);
  const out: string[] = [];
  try {
    const score = await scoreTrajectory({
      task,
      termination: "user_stop",
      messages,
      language,
      template: vitaPrompt("sliding_window_eval_template", language),
      judge: async ({ window, system, user }) => {
        out.push(JSON.stringify({ case: c.id, window, system, user }));
        return c.replies[window - 1] ?? "";
      },
    });
    out.push(JSON.stringify({ case: c.id, final: { reward: score.reward, partial: score.partial, met: score.rubrics.map((r) => r.met) } }));
  } catch (e) {
    out.push(JSON.stringify({ case: c.id, final: { error: pyErrorName(e) } }));
  }
  return out;
}

if (process.argv[1]?.endsWith("judge-prompts.ts")) {
  for (const line of casesOf(readFileSync(argValue("--cases"), "utf8"))) for (const o of await runJudgeCase(line)) process.stdout.write(o + "\n");
}
