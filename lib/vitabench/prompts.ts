/**
 * Upstream's prompt templates ($ENVACE_DATA_DIR/vitabench/prompts/*.yaml, each {name, chinese, english}): Python
 * str.format templates — {time} (agent), {persona} and {instructions} (user simulator), {env_info},
 * {user_instruction}, {window_idx}, {total_windows} (judge) — and the texts an episode opens with, as upstream
 * renders them (vita/agent/llm_agent.py, vita/user/user_simulator.py, vita/orchestrator/orchestrator.py @ 96f3b85).
 * Shared by the worker's episode and the launch check, which measures the first prompts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { formatNamed } from "../python/builtins";
import { pyStr, type PyDict } from "../python/values";
import type { VitaLanguage } from "./datasets";
import { dataDir as sharedDataDir } from "../tau2/tasks";

export type VitaPromptName = "agent_system_prompt" | "user_system_prompt" | "sliding_window_eval_template";
export type VitaPromptLanguage = "chinese" | "english";

export const promptLanguage = (lang: VitaLanguage): VitaPromptLanguage => (lang === "en" ? "english" : "chinese");

const cache = new Map<string, string>();

export function vitaPrompt(name: VitaPromptName, language: VitaPromptLanguage, dataDir = sharedDataDir()): string {
  const path = join(dataDir, "vitabench", "prompts", `${name}.yaml`);
  const key = `${path}:${language}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const doc = parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const text = doc[language];
  if (typeof text !== "string") throw new Error(`${path}: no "${language}" text`);
  cache.set(key, text);
  return text;
}

const WEEKDAYS: Record<VitaPromptLanguage, string[]> = {
  english: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
  chinese: ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"],
};

/** utils.get_weekday(time, language) for "%Y-%m-%d %H:%M:%S". */
export function weekday(time: string, language: VitaPromptLanguage): string {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(time);
  if (!m) throw new Error(`time "${time}" is not %Y-%m-%d %H:%M:%S`);
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return WEEKDAYS[language][(d.getUTCDay() + 6) % 7]!;
}

/** The greeting every episode opens with (get_default_first_agent_message): the user simulator answers it. */
export function greeting(language: VitaPromptLanguage): string {
  return language === "chinese" ? "你好，请问需要什么服务？" : "Hello, how can I help you?";
}

/** LLMAgent.system_prompt: agent_system_prompt.format(time=f"{time} {weekday}") with the task's time. */
export function agentSystemPrompt(language: VitaPromptLanguage, time: string, dataDir?: string): string {
  return formatNamed(vitaPrompt("agent_system_prompt", language, dataDir), { time: `${time} ${weekday(time, language)}` });
}

/** UserSimulator.system_prompt: user_system_prompt.format(persona=str(user_profile), instructions=str(instructions)). */
export function userSystemPrompt(language: VitaPromptLanguage, userProfile: PyDict, instructions: string, dataDir?: string): string {
  return formatNamed(vitaPrompt("user_system_prompt", language, dataDir), { persona: pyStr(userProfile), instructions });
}

/** The user simulator's stop tokens (vita/user/base.py): any of them in a user message ends the episode (USER_STOP). */
export const USER_STOP_TOKENS = ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"] as const;
/** The agent's stop token (BaseAgent.STOP_TOKEN): in the agent's message it ends the episode (AGENT_STOP). */
export const AGENT_STOP_TOKEN = "###STOP###";
