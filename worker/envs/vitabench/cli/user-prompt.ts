/**
 * npm run -s vita:user-prompt -- --cases FILE
 * case {"id","task_file","task_id","lang","domain"}   out {"case","user_system","agent_system"}
 * The user simulator's and the agent's system prompts of the task as an episode starts them (episode.ts).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { agentSystemPrompt, promptLanguage, userSystemPrompt } from "../../../../lib/vitabench/prompts";
import { findTask, resolveTaskFile } from "../data";
import { parseDomains } from "../index";
import { argValue, casesOf } from "./common";

const caseSchema = z.object({ id: z.string(), task_file: z.string(), task_id: z.string(), lang: z.enum(["zh", "en"]), domain: z.string() });

export function runUserPromptCase(line: string): string {
  const c = caseSchema.parse(JSON.parse(line));
  parseDomains(c.domain);
  const task = findTask(resolveTaskFile(c.task_file), c.task_id);
  const language = promptLanguage(c.lang);
  return JSON.stringify({
    case: c.id,
    user_system: userSystemPrompt(language, task.userProfile, task.instructions),
    agent_system: agentSystemPrompt(language, (task.environment.get("time") ?? "") as string),
  });
}

if (process.argv[1]?.endsWith("user-prompt.ts")) {
  for (const line of casesOf(readFileSync(argValue("--cases"), "utf8"))) process.stdout.write(runUserPromptCase(line) + "\n");
}
