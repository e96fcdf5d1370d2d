/**
 * The system prompt of memory entries, as upstream's `add_memory_instruction_system_prompt` builds it: the
 * scenario's agent setting and the memory's current content in the back end's template, placed first in the
 * first turn (merged before an existing system message, which questions carry: the agentic answer-format
 * prompt). The texts are upstream's, read at run time from the reference's `constants/default_prompts.py`
 * under `$ENVACE_DATA_DIR/bfcl` (not copied into this repository).
 */
import { readFileSync } from "node:fs";
import { bfclDataDir, bfclFile, BfclFileError } from "../single-turn/files";
import type { MemoryCategory, MemoryScenario } from "./data";

export interface MemoryPrompts {
  agentSettings: Record<string, string>;
  coreArchival: string;
  unified: string;
  agenticResponseFormat: string;
}

const PROMPTS_FILE = "reference/bfcl_eval/constants/default_prompts.py";

/** Python string-literal escapes used in these constants. */
function unescape(body: string): string {
  return body.replace(/\\(u[0-9a-fA-F]{4}|n|t|"|'|\\)/g, (_, e: string) =>
    e.startsWith("u") ? String.fromCharCode(parseInt(e.slice(1), 16)) : ({ n: "\n", t: "\t", '"': '"', "'": "'", "\\": "\\" } as Record<string, string>)[e],
  );
}

/** Reads the memory prompt constants from upstream's default_prompts.py. */
export function loadMemoryPrompts(dir = bfclDataDir()): MemoryPrompts {
  const file = bfclFile(PROMPTS_FILE, dir);
  const source = readFileSync(file, "utf8");
  const triple = (name: string): string => {
    const m = new RegExp(`^${name} = """([\\s\\S]*?)"""`, "m").exec(source);
    if (!m) throw new BfclFileError(`${file}: ${name} not found`);
    return unescape(m[1]);
  };
  const settingsBlock = /^MEMORY_AGENT_SETTINGS = \{([\s\S]*?)^\}/m.exec(source);
  if (!settingsBlock) throw new BfclFileError(`${file}: MEMORY_AGENT_SETTINGS not found`);
  const agentSettings: Record<string, string> = {};
  for (const m of settingsBlock[1].matchAll(/^\s*"(\w+)":\s*"((?:[^"\\]|\\.)*)",?\s*$/gm)) agentSettings[m[1]] = unescape(m[2]);
  return {
    agentSettings,
    coreArchival: triple("MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL"),
    unified: triple("MEMORY_BACKEND_INSTRUCTION_UNIFIED"),
    agenticResponseFormat: triple("ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT"),
  };
}

/** `str.format(scenario_setting=…, memory_content=…)` for these templates (no other fields, no braces). */
const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (all, k: string) => values[k] ?? all);

/** The memory system prompt for an entry of `category` in `scenario` with the back end's current memory. */
export function memorySystemPrompt(prompts: MemoryPrompts, category: MemoryCategory, scenario: MemoryScenario, backend: { contextText(): string }): string {
  const setting = prompts.agentSettings[scenario];
  if (setting === undefined) throw new BfclFileError(`no agent setting for memory scenario ${scenario}`);
  const template = category.includes("rec_sum") ? prompts.unified : prompts.coreArchival;
  return fill(template, { scenario_setting: setting, memory_content: backend.contextText() });
}

type Message = { role: string; content: string };

/**
 * The first turn's messages with the memory prompt in front (upstream: questions first get the agentic
 * answer-format system message, then the memory prompt is merged before it with a blank line).
 */
export function withMemoryPrompt(prompts: MemoryPrompts, firstTurn: readonly Message[], isQuestion: boolean, systemPrompt: string): Message[] {
  const turn = isQuestion ? [{ role: "system", content: prompts.agenticResponseFormat }, ...firstTurn] : [...firstTurn];
  if (turn.length > 0 && turn[0].role === "system") return [{ ...turn[0], content: systemPrompt + "\n\n" + turn[0].content }, ...turn.slice(1)];
  return [{ role: "system", content: systemPrompt }, ...turn];
}
