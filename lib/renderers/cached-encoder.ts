/**
 * Exact, cached tokenisation over an @huggingface/tokenizers Tokenizer (the renderers' hot path: a
 * paper-scale step tokenises millions of prompt characters, and the library alone does ~0.25 M
 * tokens/s on one core — bench/pack.ts).
 *
 * It follows the library's own `encode` step by step (Tokenizer.encode_text, 0.2.x) and caches where
 * the library's result is, by construction, a function of a piece alone:
 * 1. Sections. The library first cuts the text at added tokens (<|im_start|>, <think>, <tool_call>, …)
 *    and encodes every section between them on its own; a section's ids are memoised by its text. Chat
 *    prompts repeat sections all the time: a rollout's act prompts share every earlier message, and its
 *    rehearse prompts repeat the history's think blocks, tool calls and tool results.
 * 2. Pre-tokens. Within a section (normalised as the library does), a split pre-tokenizer cuts the text
 *    by its regex and everything after it (byte-level mapping, BPE) works on each pre-token alone; a
 *    pre-token's ids are memoised by its text. Used only when the tokenizer has exactly that shape
 *    (Qwen3, Llama 3); otherwise a section miss is the library's encode of the section.
 * With add_special_tokens off, the post-processors these tokenizers use add nothing, so the ids equal
 * `tokenizer.encode(text, { add_special_tokens: false }).ids` (renderers.test.ts checks it on stress
 * strings and random texts).
 */
import type { Tokenizer } from "@huggingface/tokenizers";

/** The parts of the library's Tokenizer this module reads (untyped internals of 0.2.x). */
interface Internals {
  added_tokens: { content: string; normalized: boolean }[];
  added_tokens_map: Map<string, { id: number; lstrip: boolean; rstrip: boolean }>;
  normalizer: ((text: string) => string) | null;
  pre_tokenizer: { tokenizers?: unknown[]; pre_tokenize_text?: unknown } | null;
  model: ((tokens: string[]) => string[]) & { tokens_to_ids: Map<string, number>; unk_token_id?: number; fuse_unk?: boolean };
  post_processor: unknown;
  remove_space?: boolean;
  do_lowercase_and_remove_accent?: boolean;
  tokenizer: { pre_tokenizer?: { type?: string; pretokenizers?: { type?: string; use_regex?: boolean; behavior?: string; invert?: boolean }[] } | null; post_processor?: unknown };
}

type PreTokenizer = { pre_tokenize_text(text: string, options?: unknown): string[] };

/**
 * The library's DictionarySplitter (a trie walked from every position, longest match first) as one
 * native regex search: an alternation sorted longest first finds the leftmost match and, there, the
 * longest token — the same cuts. No `u` flag: both walk UTF-16 code units.
 */
class Splitter {
  private readonly re: RegExp | null;
  constructor(words: string[]) {
    const sorted = [...new Set(words.filter((w) => w.length > 0))].sort((a, b) => b.length - a.length);
    this.re = sorted.length ? new RegExp(sorted.map((w) => w.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|"), "g") : null;
  }
  split(text: string): string[] {
    if (!this.re) return [text];
    const out: string[] = [];
    let start = 0;
    this.re.lastIndex = 0;
    for (let m = this.re.exec(text); m; m = this.re.exec(text)) {
      if (m.index > start) out.push(text.slice(start, m.index));
      out.push(m[0]);
      start = m.index + m[0].length;
    }
    if (start < text.length) out.push(text.slice(start));
    return out;
  }
}

/** Sections memoised, bounded by their total length (UTF-16 units). */
const SECTION_BUDGET_CHARS = 16_000_000;
/** Pre-tokens memoised (short strings; cleared when full). */
const PRETOKEN_LIMIT = 400_000;
/** Sections shorter than this are cheap to encode and not worth a map entry. */
const MIN_SECTION_CHARS = 16;

/** Whether post-processing with add_special_tokens off leaves the tokens as they are. */
function postProcessorIsIdentity(config: unknown): boolean {
  if (config === null || config === undefined) return true;
  const c = config as { type?: string; processors?: unknown[]; single?: unknown[] };
  if (c.type === "ByteLevel") return true;
  // TemplateProcessing adds only its SpecialToken items, and only with add_special_tokens.
  if (c.type === "TemplateProcessing")
    return Array.isArray(c.single) && c.single.every((i) => i && typeof i === "object" && ("SpecialToken" in i || ("Sequence" in i && (i as { Sequence: { id: string } }).Sequence.id === "A")));
  if (c.type === "Sequence") return Array.isArray(c.processors) && c.processors.every(postProcessorIsIdentity);
  return false;
}

export class CachedEncoder {
  private readonly t: Internals;
  /** Whether the library's cut-at-added-tokens step can be followed here (else: plain library encode). */
  private readonly sectioned: boolean;
  private readonly unnormalizedSplitter: Splitter | null = null;
  private readonly normalizedSplitter: Splitter | null = null;
  /** The split pre-tokenizer and the per-pre-token rest, when the tokenizer has that shape. */
  private readonly split: PreTokenizer | null = null;
  private readonly perPretoken: PreTokenizer | null = null;
  private readonly sections = new Map<string, number[]>();
  private sectionChars = 0;
  private readonly pretokens = new Map<string, number[]>();

  constructor(private readonly tokenizer: Tokenizer) {
    this.t = tokenizer as unknown as Internals;
    const t = this.t;
    this.sectioned =
      t.added_tokens_map instanceof Map &&
      !t.remove_space &&
      !t.do_lowercase_and_remove_accent &&
      postProcessorIsIdentity(t.tokenizer?.post_processor) &&
      Array.isArray(t.added_tokens);
    if (this.sectioned) {
      // The library's two splitters: tokens matched on the raw text, and normalised ones after normalising.
      const norm = t.normalizer;
      this.unnormalizedSplitter = new Splitter(t.added_tokens.filter((a) => !(a.normalized && norm)).map((a) => a.content));
      this.normalizedSplitter = new Splitter(norm ? t.added_tokens.filter((a) => a.normalized).map((a) => norm(a.content)) : []);
    }
    const pre = t.tokenizer?.pre_tokenizer;
    const live = t.pre_tokenizer?.tokenizers;
    if (
      this.sectioned &&
      pre?.type === "Sequence" &&
      pre.pretokenizers?.length === 2 &&
      pre.pretokenizers[0].type === "Split" &&
      pre.pretokenizers[1].type === "ByteLevel" &&
      pre.pretokenizers[1].use_regex === false &&
      Array.isArray(live) &&
      live.length === 2 &&
      typeof t.model === "function" &&
      t.model.tokens_to_ids instanceof Map &&
      !t.model.fuse_unk
    ) {
      this.split = live[0] as PreTokenizer;
      this.perPretoken = live[1] as PreTokenizer;
    }
  }

  /** Ids of `text` without special tokens added: `tokenizer.encode(text, { add_special_tokens: false }).ids`. */
  encode(text: string): number[] {
    if (!text) return [];
    if (!this.sectioned) return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
    const t = this.t;
    const sections = this.unnormalizedSplitter!.split(text);
    // As the library: an added token with lstrip / rstrip trims its neighbours.
    for (let i = 0; i < sections.length; i++) {
      const added = t.added_tokens_map.get(sections[i]);
      if (!added) continue;
      if (added.lstrip && i > 0) sections[i - 1] = sections[i - 1].trimEnd();
      if (added.rstrip && i < sections.length - 1) sections[i + 1] = sections[i + 1].trimStart();
    }
    // Each section's ids first, then one array of the exact length (a long prompt grown by push is copied several times).
    const parts: (number | number[])[] = [];
    let total = 0;
    for (const section of sections) {
      if (section.length === 0) continue;
      const added = t.added_tokens_map.get(section);
      if (added) {
        parts.push(added.id);
        total++;
        continue;
      }
      const ids = this.sectionIds(section);
      parts.push(ids);
      total += ids.length;
    }
    const out = new Array<number>(total);
    let at = 0;
    for (const part of parts) {
      if (typeof part === "number") out[at++] = part;
      else for (let i = 0; i < part.length; i++) out[at++] = part[i];
    }
    return out;
  }

  private sectionIds(section: string): number[] {
    if (section.length < MIN_SECTION_CHARS) return this.encodeSection(section);
    const hit = this.sections.get(section);
    if (hit) {
      // Least recently used goes first: a hit moves to the back.
      this.sections.delete(section);
      this.sections.set(section, hit);
      return hit;
    }
    const ids = this.encodeSection(section);
    this.sections.set(section, ids);
    this.sectionChars += section.length;
    for (const key of this.sections.keys()) {
      if (this.sectionChars <= SECTION_BUDGET_CHARS) break;
      this.sections.delete(key);
      this.sectionChars -= key.length;
    }
    return ids;
  }

  /** One section between added tokens, as the library encodes it. */
  private encodeSection(section: string): number[] {
    if (!this.split || !this.perPretoken) return this.tokenizer.encode(section, { add_special_tokens: false }).ids;
    const t = this.t;
    const normalized = t.normalizer ? t.normalizer(section) : section;
    const out: number[] = [];
    if (normalized.length === 0) return out;
    const subsections = this.normalizedSplitter!.split(normalized);
    for (let j = 0; j < subsections.length; j++) {
      const added = t.added_tokens_map.get(subsections[j]);
      if (!added) continue;
      if (added.lstrip && j > 0) subsections[j - 1] = subsections[j - 1].trimEnd();
      if (added.rstrip && j < subsections.length - 1) subsections[j + 1] = subsections[j + 1].trimStart();
    }
    for (const sub of subsections) {
      if (sub.length === 0) continue;
      const added = t.added_tokens_map.get(sub);
      if (added) {
        out.push(added.id);
        continue;
      }
      for (const piece of this.split.pre_tokenize_text(sub)) {
        let ids = this.pretokens.get(piece);
        if (!ids) {
          ids = this.encodePretoken(piece);
          if (this.pretokens.size >= PRETOKEN_LIMIT) this.pretokens.clear();
          this.pretokens.set(piece, ids);
        }
        for (let i = 0; i < ids.length; i++) out.push(ids[i]);
      }
    }
    return out;
  }

  private encodePretoken(piece: string): number[] {
    const t = this.t;
    const tokens = t.model(this.perPretoken!.pre_tokenize_text(piece));
    return tokens.map((tok) => t.added_tokens_map.get(tok)?.id ?? t.model.tokens_to_ids.get(tok) ?? (t.model.unk_token_id as number));
  }
}
