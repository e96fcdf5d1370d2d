/**
 * Prompt length as the EnvACE reference counts it when it filters its dataset (checklist_dataset.py
 * `maybe_filter_out_long_prompts`): `len(tokenizer.apply_chat_template(prompt, tools=tools,
 * add_generation_prompt=True, enable_thinking=True))` with the policy's tokenizer — Qwen3-8B in the paper
 * (every Qwen3 size shares the tokenizer) — so through the Qwen3 renderer of lib/renderers (the official
 * chat template, ids exactly as HF's).
 */
import { loadRenderer, type ChatRenderer, type RenderMessage, type RenderTool } from "../../../lib/renderers";

let qwen3: ChatRenderer | undefined;

export function qwen3PromptLength(messages: { role: string; content: string }[], tools: unknown[] | null): number {
  qwen3 ??= loadRenderer("qwen3");
  const rendered: RenderMessage[] = messages.map((m) => ({ role: (m.role === "observation" ? "tool" : m.role) as RenderMessage["role"], content: m.content }));
  return qwen3.renderPrompt(rendered, { tools: (tools ?? undefined) as RenderTool[] | undefined, enableThinking: true, addGenerationPrompt: true }).length;
}
