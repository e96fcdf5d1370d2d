import { describe, expect, it } from "vitest";
import { HfChatRenderer } from "./hf";
import { loadRenderer } from "./registry";
import { mulberry32 } from "../random";

/** Strings that stress every step of the library's encode: added tokens inside text, NFC, contractions, digits, scripts, whitespace. */
const STRESS = [
  "",
  "a",
  "<think>",
  "<think></think>",
  "x<think>y</think>z<tool_call>\n{}\n</tool_call>",
  "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
  "<|im_start<|im_start|>|>",
  "<<think>>",
  "<|endoftext|><|endoftext|>",
  "e\u0301 cafe\u0301 \u0041\u030A \u1E9B\u0323",
  "I'M HERE, you're there, they'VE gone, it's 'd 'll",
  "123456789 3.14159 1,000,000 ٣٤٥ ①②",
  "中文字符测试，日本語のテキスト、한국어 텍스트",
  "👩‍👩‍👧‍👦 🏳️‍🌈 👍🏽 \uFFFD\n",
  "   leading and trailing   ",
  "tabs\t\tand\r\nwindows\r\n\r\nnewlines\n\n\n",
  "\u200B\u200B\u200Bzero width\u200B",
  '{"name": "tool_1", "arguments": {"id": "a-1", "note": "x"}}',
  "\n<tool_response>\nok\n</tool_response>\n",
  "a".repeat(300) + " " + "9".repeat(300) + " " + " ".repeat(300),
];

/** Random texts built from risky pieces. */
function randomTexts(count: number, seed: number): string[] {
  const pieces = ["<think>", "</think>", "<tool_call>", "<|im_end|>", "<|im_start|>", "\n", "\n\n", " ", "  ", "\t", "\r\n", "e\u0301", "\u0301", "'s", "'S", "don't", "12", "345", "中文", "😀", "‍", "word", " Word", "{", "}", '"', ":", ",", ".", "!?", "<", "|", ">", "<|", "im_", "\u00A0", "ß", "İ"];
  const r = mulberry32(seed);
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(r() * 60) }, () => pieces[Math.floor(r() * pieces.length)]).join(""));
}

describe("cached encoder", () => {
  for (const name of ["qwen3", "llama3.1"] as const) {
    it(`${name}: ids equal the tokenizer library's own encode, cold and from the caches`, () => {
      const renderer = loadRenderer(name) as HfChatRenderer;
      const texts = [...STRESS, ...randomTexts(400, name.length)];
      for (const pass of [0, 1]) {
        for (const text of texts) expect(renderer.encode(text), `${name} pass ${pass}: ${JSON.stringify(text)}`).toEqual(renderer.encodeUncached(text));
      }
      // Sections seen alone and then inside a longer text (the cache is per section, never per text).
      const long = texts.slice(0, 50).join("<think>");
      expect(renderer.encode(long)).toEqual(renderer.encodeUncached(long));
      expect(renderer.countTokens(long)).toBe(renderer.encodeUncached(long).length);
    });
  }
});
