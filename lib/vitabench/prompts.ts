/**
 * Upstream's prompt templates ($ENVACE_DATA_DIR/vitabench/prompts/*.yaml, each {name, chinese, english}): Python
 * str.format templates — {time} (agent), {persona} and {instructions} (user simulator), {env_info},
 * {user_instruction}, {window_idx}, {total_windows} (judge).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

export type VitaPromptName = "agent_system_prompt" | "user_system_prompt" | "sliding_window_eval_template";

export function vitaPrompt(name: VitaPromptName, language: "chinese" | "english", dataDir = process.env.ENVACE_DATA_DIR ?? "data"): string {
  const path = join(dataDir, "vitabench", "prompts", `${name}.yaml`);
  const doc = parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const text = doc[language];
  if (typeof text !== "string") throw new Error(`${path}: no "${language}" text`);
  return text;
}
