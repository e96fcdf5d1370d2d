/**
 * Byte-level tokenizer for the tiny model: ids 0..255 are the UTF-8 bytes, ids 256.. are special
 * tokens for the chat format. No merges: every text costs one token per byte, which keeps the
 * tokenizer exact and dependency-free (and the vocabulary tiny).
 */

export const SPECIAL_TOKENS = {
  "<|system|>": 256,
  "<|user|>": 257,
  "<|assistant|>": 258,
  "<|tool|>": 259,
  /** End of a message; the stop token of generation. */
  "<|end|>": 260,
  "<|pad|>": 261,
} as const;
export type SpecialToken = keyof typeof SPECIAL_TOKENS;

/** Vocabulary size (rounded up to a multiple of 8). */
export const VOCAB_SIZE = 264;

export const END_TOKEN = SPECIAL_TOKENS["<|end|>"];
export const PAD_TOKEN = SPECIAL_TOKENS["<|pad|>"];

const specialById = new Map<number, string>(Object.entries(SPECIAL_TOKENS).map(([k, v]) => [v, k]));
const encoder = new TextEncoder();

export function encodeText(text: string): number[] {
  return Array.from(encoder.encode(text));
}

/**
 * Decodes token ids to text. Bytes are decoded as UTF-8 (invalid sequences become U+FFFD);
 * special tokens are written by name unless `skipSpecial` is set.
 */
export function decode(tokens: number[], opts: { skipSpecial?: boolean } = {}): string {
  let out = "";
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out += new TextDecoder("utf-8").decode(Uint8Array.from(bytes));
    bytes = [];
  };
  for (const t of tokens) {
    if (t >= 0 && t < 256) bytes.push(t);
    else {
      flush();
      if (!Number.isInteger(t) || t < 0 || t >= VOCAB_SIZE) throw new Error(`token id ${t} is outside the vocabulary (0..${VOCAB_SIZE - 1})`);
      if (!opts.skipSpecial) out += tokenString(t);
    }
  }
  flush();
  return out;
}

/** Raw bytes of one token (empty for special tokens); used for OpenAI logprobs `bytes`. */
export function tokenBytes(token: number): number[] {
  return token >= 0 && token < 256 ? [token] : [];
}

/** Display string of one token: the byte as latin-1-safe text, or the special token's name. */
export function tokenString(token: number): string {
  if (token >= 0 && token < 256) return new TextDecoder("utf-8").decode(Uint8Array.of(token));
  // ids without a name are reserved padding of the vocabulary
  return specialById.get(token) ?? `<|reserved_${token}|>`;
}
