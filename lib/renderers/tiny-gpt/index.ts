/**
 * The embedded node's tiny GPT behind the renderer interface. Its byte-level chat format stays the
 * node's own (chat-format.ts beside this file, which the embedded node in worker/node also uses); this only adapts OpenAI-style messages to it.
 */
import * as chat from "./chat-format";
import { decode as decodeBytes, VOCAB_SIZE } from "./tokenizer";
import { type ChatRenderer, type RenderMessage, type RenderOptions, TokenOutOfVocabularyError } from "../types";

type TinyMessage = Parameters<typeof chat.renderPrompt>[0][number];

function toTiny(m: RenderMessage): TinyMessage {
  return {
    role: m.role,
    content: m.content ?? "",
    ...(m.name !== undefined ? { name: m.name } : {}),
    ...(m.tool_calls
      ? {
          tool_calls: m.tool_calls.map((c, i) => ({
            id: c.id ?? `call_${i}`,
            type: "function" as const,
            function: { name: c.function.name, arguments: typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments) },
          })),
        }
      : {}),
  };
}

export function createTinyGptRenderer(): ChatRenderer {
  const isValidToken = (id: number) => Number.isInteger(id) && id >= 0 && id < VOCAB_SIZE;
  const render = (messages: readonly RenderMessage[], options: RenderOptions = {}) => {
    const ids = chat.renderPrompt(messages.map(toTiny));
    // The format's generation prompt is its final <|assistant|> token.
    return options.addGenerationPrompt === false ? ids.slice(0, -1) : ids;
  };
  return {
    name: "tiny-gpt",
    vocabularyName: "tiny-gpt byte",
    vocabSize: VOCAB_SIZE,
    stopTokens: chat.stopTokens,
    contextLength: null,
    supportsThinking: false,
    isValidToken,
    renderPrompt: render,
    renderText: (messages, options) => decodeBytes(render(messages, options)),
    countTokens: (text) => new TextEncoder().encode(text).length,
    decode(ids) {
      const bad = ids.filter((id) => !isValidToken(id));
      if (bad.length) throw new TokenOutOfVocabularyError("tiny-gpt", "tiny-gpt byte", VOCAB_SIZE, bad);
      return chat.decode([...ids]);
    },
    splitResponse: (text) => ({ reasoning: null, content: text }),
  };
}
