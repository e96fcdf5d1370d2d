/**
 * A renderer over a model's published tokenizer files: `tokenizer.json` (BPE through
 * @huggingface/tokenizers) and the chat template from `tokenizer_config.json` (through
 * @huggingface/jinja, with trim_blocks / lstrip_blocks, raise_exception and strftime_now as in
 * transformers' apply_chat_template).
 *
 * Why @huggingface/tokenizers: measured against HF's Rust `tokenizers` on 664 stress strings (special
 * tokens inside text, NFC, contractions in any case, digits, CJK, emoji ZWJ sequences, whitespace runs,
 * \r\n) it gave 0 encode mismatches for Qwen3 and Llama 3; @lenml/tokenizers gave 2 (a literal "\n"
 * after U+FFFD, a zero-width space run). It is HF's own port, has no dependencies, and translates the
 * Oniguruma pre-tokenizer regex structurally instead of handing it to RegExp.
 */
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import { CachedEncoder } from "./cached-encoder";
import type { ExplicitTemplate, TemplateContext } from "./jinja-values";
import { llama31Template } from "./llama31";
import { qwen3Template } from "./qwen3";
import {
  type ChatRenderer,
  type PromptCache,
  type RenderMessage,
  type RenderOptions,
  RenderError,
  RendererConfigError,
  type SplitResponse,
  TokenOutOfVocabularyError,
} from "./types";

export interface HfRendererSpec {
  name: string;
  vocabularyName: string;
  /** Parsed tokenizer.json. */
  tokenizerJson: Record<string, unknown>;
  /** Parsed tokenizer_config.json. */
  tokenizerConfig: Record<string, unknown>;
  /** Template to use instead of tokenizer_config.chat_template. */
  chatTemplate?: string;
  /** Stop tokens by name; each must be a token of the vocabulary. */
  stopTokens: string[];
  contextLength: number | null;
  /** The reasoning block delimiters when the model writes one (Qwen3: <think> … </think>). */
  thinking?: { open: string; close: string };
  /** Where the files came from, for error messages. */
  source: string;
  /**
   * The template writes `tools` into the first system block only (Qwen3's official template), so a
   * message rendered after the incremental sentinel renders the same with or without them: segments are
   * then rendered without the tool schemas (a dozen schemas through the template's tojson per message
   * is most of an act prompt's render). prompt-cache.test.ts checks the property on Qwen3's template.
   */
  toolsInSystemBlockOnly?: boolean;
  /**
   * Render a template this repository writes out explicitly (Qwen3's official one, qwen3.ts; Llama 3.1
   * Instruct, llama31.ts) with that code instead of the interpreter. Default true; false is the
   * interpreter reference qwen3.test.ts and llama31.test.ts compare against.
   */
  explicitTemplate?: boolean;
}

/** Templates written out as code (one small explicit renderer per model family), by their exact source text. */
const EXPLICIT_TEMPLATES: readonly ExplicitTemplate[] = [qwen3Template, llama31Template];

/** The reference's incremental-render sentinel (two fixed messages that anchor each appended message). */
const SENTINEL: RenderMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "I am a user." },
];

const CACHE_LIMIT = 4096;

/** What a PromptCache holds for the incremental history (HfChatRenderer.incrementalRender). */
interface IncrementalState {
  key: string;
  generationPrompt: string;
  baseWith: string;
  baseWithout: string;
  /** The pieces of the first `consumed` messages, before the final generation prompt, with their ids. */
  pieces: string[];
  ids: number[][];
  consumed: number;
  /** Those messages as they were rendered (a caller may change a message in place). */
  seen: MessageSnapshot[];
}

interface MessageSnapshot {
  message: RenderMessage;
  fields: unknown[];
  toolCalls: string;
}

function snapshot(m: RenderMessage): MessageSnapshot {
  return { message: m, fields: [m.role, m.content, m.name, m.tool_call_id, m.reasoning_content], toolCalls: m.tool_calls ? JSON.stringify(m.tool_calls) : "" };
}

/** The same message object with the same fields (strings compare by reference first: cheap when unchanged). */
function sameMessage(s: MessageSnapshot, m: RenderMessage): boolean {
  if (s.message !== m) {
    const keys = Object.keys(m).filter((k) => (m as unknown as Record<string, unknown>)[k] !== undefined);
    if (keys.some((k) => !["role", "content", "name", "tool_call_id", "reasoning_content", "tool_calls"].includes(k))) return false;
  }
  const f = [m.role, m.content, m.name, m.tool_call_id, m.reasoning_content];
  for (let i = 0; i < f.length; i++) if (f[i] !== s.fields[i]) return false;
  return (m.tool_calls ? JSON.stringify(m.tool_calls) : "") === s.toolCalls;
}

/** Special-token strings transformers passes to every template (its special_tokens_map). */
function specialTokensMap(config: Record<string, unknown>): Record<string, unknown> {
  const asText = (v: unknown): string | undefined =>
    typeof v === "string" ? v : v && typeof v === "object" && typeof (v as { content?: unknown }).content === "string" ? (v as { content: string }).content : undefined;
  const out: Record<string, unknown> = {};
  for (const key of ["bos_token", "eos_token", "unk_token", "pad_token"]) {
    const t = asText(config[key]);
    if (t !== undefined) out[key] = t;
  }
  if (Array.isArray(config.additional_special_tokens)) out.additional_special_tokens = config.additional_special_tokens.map(asText).filter((t) => t !== undefined);
  return out;
}

/** Drop keys whose value is undefined: templates test key presence (`'tool_calls' in message`). */
function plain(message: RenderMessage, parseArgs: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(message)) if (v !== undefined) out[k] = v;
  if (parseArgs && message.tool_calls) {
    out.tool_calls = message.tool_calls.map((call) => {
      const args = call.function.arguments;
      if (typeof args !== "string") return call;
      try {
        const parsed: unknown = JSON.parse(args);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return { ...call, function: { ...call.function, arguments: parsed } };
      } catch {
        // not JSON: the template gets the string as it was written
      }
      return call;
    });
  }
  return out;
}

export class HfChatRenderer implements ChatRenderer {
  readonly name: string;
  readonly vocabularyName: string;
  readonly vocabSize: number;
  readonly stopTokens: readonly number[];
  readonly contextLength: number | null;
  readonly supportsThinking: boolean;
  private readonly tokenizer: Tokenizer;
  /** The tokenizer's encode with its results cached by section and pre-token (exact; cached-encoder.ts). */
  private readonly encoder: CachedEncoder;
  private readonly template: Template;
  /**
   * The template as plain string building, when the model's template is one this repository writes
   * out explicitly (Qwen3's official template: qwen3.ts; Meta's Llama 3.1 Instruct template: llama31.ts);
   * null returns mean "let the interpreter do it".
   */
  private readonly explicit: ExplicitTemplate | null;
  private readonly specials: Record<string, unknown>;
  private readonly thinking?: { open: string; close: string };
  private readonly toolsInSystemBlockOnly: boolean;
  private readonly texts = new Map<string, string>();
  private readonly pieceIds = new Map<string, number[]>();
  /** Added tokens the tokenizer splits on before anything else (no lstrip): safe piece boundaries. */
  private readonly splitTokens: string[];

  constructor(spec: HfRendererSpec) {
    this.name = spec.name;
    this.vocabularyName = spec.vocabularyName;
    this.contextLength = spec.contextLength;
    this.thinking = spec.thinking;
    this.toolsInSystemBlockOnly = spec.toolsInSystemBlockOnly === true;
    try {
      this.tokenizer = new Tokenizer(spec.tokenizerJson, spec.tokenizerConfig);
    } catch (e) {
      throw new RendererConfigError(`renderer "${spec.name}": ${spec.source}: tokenizer.json is not a tokenizer this library can load (${e instanceof Error ? e.message : String(e)})`);
    }
    this.encoder = new CachedEncoder(this.tokenizer);
    const source = spec.chatTemplate ?? spec.tokenizerConfig.chat_template;
    if (typeof source !== "string" || source.trim() === "") {
      throw new RendererConfigError(`renderer "${spec.name}": ${spec.source}: tokenizer_config.json has no chat_template (a single template string is required)`);
    }
    try {
      this.template = new Template(source);
    } catch (e) {
      throw new RendererConfigError(`renderer "${spec.name}": ${spec.source}: the chat template does not parse (${e instanceof Error ? e.message : String(e)})`);
    }
    this.explicit = spec.explicitTemplate !== false ? (EXPLICIT_TEMPLATES.find((t) => t.source === source) ?? null) : null;
    this.supportsThinking = source.includes("enable_thinking");
    this.specials = specialTokensMap(spec.tokenizerConfig);

    // Valid ids are 0 … max: every id in between must decode (BPE vocabularies are contiguous).
    const vocab = this.tokenizer.get_vocab(true);
    let max = -1;
    for (const id of vocab.values()) if (id > max) max = id;
    if (max < 0 || vocab.size !== max + 1) {
      throw new RendererConfigError(`renderer "${spec.name}": ${spec.source}: the vocabulary is not contiguous (${vocab.size} tokens, largest id ${max})`);
    }
    this.vocabSize = max + 1;
    const added = Array.isArray(spec.tokenizerJson.added_tokens) ? (spec.tokenizerJson.added_tokens as { content?: unknown; lstrip?: unknown }[]) : [];
    this.splitTokens = added.filter((t) => typeof t.content === "string" && t.content !== "" && t.lstrip !== true).map((t) => t.content as string);
    this.stopTokens = spec.stopTokens.map((t) => {
      const id = this.tokenizer.token_to_id(t);
      if (id === undefined) throw new RendererConfigError(`renderer "${spec.name}": ${spec.source}: stop token ${t} is not in the vocabulary`);
      return id;
    });
    if (this.stopTokens.length === 0) throw new RendererConfigError(`renderer "${spec.name}": ${spec.source}: no stop token (set eos_token in tokenizer_config.json)`);
  }

  isValidToken(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < this.vocabSize;
  }

  /** Token id of one token string (special or not), or undefined. */
  tokenId(token: string): number | undefined {
    return this.tokenizer.token_to_id(token);
  }

  countTokens(text: string): number {
    return this.encoder.encode(text).length;
  }

  encode(text: string): number[] {
    return this.encoder.encode(text);
  }

  /** The tokenizer library's own encode, uncached (the reference the cached path is tested against). */
  encodeUncached(text: string): number[] {
    return text ? this.tokenizer.encode(text, { add_special_tokens: false }).ids : [];
  }

  renderPrompt(messages: readonly RenderMessage[], options: RenderOptions = {}, cache?: PromptCache): number[] {
    // apply_chat_template(tokenize=True) tokenises the rendered text without adding special tokens:
    // the template writes BOS itself where the model wants it. (The encoder caches by section: a
    // re-render of a known context tokenises only what is new.)
    if (options.history !== "incremental") return this.encode(this.renderText(messages, options));
    const { pieces, ids } = this.incrementalRender(messages, options, cache);
    // Each piece that starts with an added token (the tokenizer splits there before normalising and
    // pre-tokenising) is tokenised alone; otherwise the whole text is, so the ids always equal
    // encode(renderText(...)).
    for (let i = 1; i < pieces.length; i++) if (!this.startsAtSplit(pieces[i])) return this.encode(pieces.join(""));
    // One array of the prompt's exact length (a 12,000-token prompt grown by push is copied several times).
    let total = 0;
    for (const part of ids) total += part.length;
    const out = new Array<number>(total);
    let at = 0;
    for (const part of ids) for (let i = 0; i < part.length; i++) out[at++] = part[i];
    return out;
  }

  renderText(messages: readonly RenderMessage[], options: RenderOptions = {}): string {
    return options.history === "incremental" ? this.incrementalRender(messages, options).pieces.join("") : this.renderOnce(messages, options, options.addGenerationPrompt ?? true);
  }

  decode(ids: readonly number[]): string {
    const bad = ids.filter((id) => !this.isValidToken(id));
    if (bad.length) throw new TokenOutOfVocabularyError(this.name, this.vocabularyName, this.vocabSize, bad);
    if (ids.length === 0) return "";
    return this.tokenizer.decode([...ids], { skip_special_tokens: true, clean_up_tokenization_spaces: false });
  }

  splitResponse(text: string): SplitResponse {
    const t = this.thinking;
    if (!t) return { reasoning: null, content: text };
    const close = text.indexOf(t.close);
    if (close < 0) return { reasoning: null, content: text };
    // Same split as the Qwen3 template: reasoning is what precedes </think> (after <think>), content follows.
    const before = text.slice(0, close);
    const open = before.lastIndexOf(t.open);
    const reasoning = (open >= 0 ? before.slice(open + t.open.length) : before).replace(/^\n+/, "").replace(/\n+$/, "");
    return { reasoning, content: text.slice(close + t.close.length).replace(/^\n+/, "") };
  }

  /** One apply_chat_template call. */
  private renderOnce(messages: readonly RenderMessage[], options: RenderOptions, addGenerationPrompt: boolean): string {
    const context: Record<string, unknown> = {
      ...this.specials,
      messages: messages.map((m) => plain(m, options.parseToolArguments ?? false)),
      tools: options.tools ?? null,
      documents: null,
      add_generation_prompt: addGenerationPrompt,
    };
    if (options.enableThinking !== undefined) context.enable_thinking = options.enableThinking;
    if (this.explicit) {
      const text = this.explicit.render(context as TemplateContext);
      if (text !== null) return text;
    }
    try {
      return this.template.render(context);
    } catch (e) {
      throw new RenderError(this.name, e instanceof Error ? e.message : String(e));
    }
  }

  /**
   * The reference's caller token buffer as a pure function of the messages, as text pieces (with each
   * piece's ids): the messages before the first assistant message render together (with the generation
   * prompt); then each assistant message, each run of tool messages and each user/system message renders
   * after the sentinel, which is cut off; the generation prompt is added wherever the next assistant turn
   * starts. With a cache whose last render covered a prefix of these messages (same options), the pieces
   * of that prefix are taken as they were and only the rest is rendered — the same pieces, since each
   * piece depends on its own messages and on the pieces before it only.
   */
  private incrementalRender(messages: readonly RenderMessage[], options: RenderOptions, cache?: PromptCache): { pieces: string[]; ids: number[][] } {
    const first = messages.findIndex((m) => m.role === "assistant");
    if (first < 0) {
      // An instance's opening prompt with its tool schemas (the slow part of a template render) is the
      // first act prompt of each of its rollouts: memoised. (Prompts without tools — rehearse prompts,
      // each new — are not kept.)
      const render = () => this.renderOnce(messages, options, options.addGenerationPrompt ?? true);
      const text = options.tools?.length ? this.memo(this.texts, `open\u0000${this.optionsKey(options)}\u0000${options.addGenerationPrompt ?? true}\u0000${JSON.stringify(messages)}`, render) : render();
      return { pieces: [text], ids: [this.encode(text)] };
    }
    if (first === 0) throw new RenderError(this.name, "incremental rendering needs the prompt's opening messages before the first assistant message");
    const key = this.optionsKey(options);
    const resumed = cache ? this.resume(cache.state, messages, key) : null;
    let state: IncrementalState;
    if (resumed) state = resumed;
    else {
      const initial = messages.slice(0, first);
      const initialKey = `${key}\u0000${JSON.stringify(initial)}`;
      const initialWith = this.memo(this.texts, `with\u0000${initialKey}`, () => this.renderOnce(initial, options, true));
      const initialWithout = this.memo(this.texts, `without\u0000${initialKey}`, () => this.renderOnce(initial, options, false));
      if (!initialWith.startsWith(initialWithout)) throw new RenderError(this.name, "the template's generation prompt is not a suffix of the prompt; incremental rendering is not possible");
      state = {
        key,
        generationPrompt: initialWith.slice(initialWithout.length),
        baseWithout: this.memo(this.texts, `base\u0000${this.optionsKey(this.segmentOptions(options))}`, () => this.renderOnce(SENTINEL, this.segmentOptions(options), false)),
        baseWith: this.memo(this.texts, `base+\u0000${this.optionsKey(this.segmentOptions(options))}`, () => this.renderOnce(SENTINEL, this.segmentOptions(options), true)),
        pieces: [initialWith],
        ids: [this.encode(initialWith)],
        consumed: first,
        seen: messages.slice(0, first).map(snapshot),
      };
    }
    const { generationPrompt, baseWith, baseWithout } = state;
    const segmentOptions = this.segmentOptions(options);
    const segmentKey = this.optionsKey(segmentOptions);
    const pieces = [...state.pieces];
    const ids = [...state.ids];
    const push = (text: string) => {
      pieces.push(text);
      ids.push(this.encode(text));
    };
    const ensurePrompt = () => {
      if (!pieces[pieces.length - 1].endsWith(generationPrompt)) push(generationPrompt);
    };
    for (let i = state.consumed; i < messages.length; ) {
      const m = messages[i];
      let group: readonly RenderMessage[];
      if (m.role === "tool") {
        let j = i;
        while (j < messages.length && messages[j].role === "tool") j++;
        group = messages.slice(i, j);
        i = j;
      } else {
        group = [m];
        i++;
      }
      // The interpreter's segments are memoised; the explicit renderer writes one in less time than its memo key takes.
      const renderSegment = () => this.renderOnce([...SENTINEL, ...group], segmentOptions, false);
      const rendered = this.explicit ? renderSegment() : this.memo(this.texts, `seg\u0000${segmentKey}\u0000${JSON.stringify(group)}`, renderSegment);
      if (m.role === "assistant") {
        ensurePrompt();
        if (rendered.startsWith(baseWith)) push(rendered.slice(baseWith.length));
        else if (rendered.startsWith(baseWithout)) {
          // The template renders this message's header differently from the generation prompt (e.g.
          // reasoning kept with thinking off): the message replaces the generation prompt.
          const last = pieces.pop()!;
          ids.pop();
          const kept = last.slice(0, last.length - generationPrompt.length);
          if (kept) push(kept);
          push(rendered.slice(baseWithout.length));
        } else throw new RenderError(this.name, "the template renders the sentinel differently with a message after it; incremental rendering is not possible");
      } else {
        if (!rendered.startsWith(baseWithout)) throw new RenderError(this.name, "the template renders the sentinel differently with a message after it; incremental rendering is not possible");
        push(rendered.slice(baseWithout.length));
      }
    }
    if (cache) {
      const seen = resumed ? [...resumed.seen, ...messages.slice(resumed.consumed).map(snapshot)] : messages.map(snapshot);
      cache.state = { key, generationPrompt, baseWith, baseWithout, pieces: [...pieces], ids: [...ids], consumed: messages.length, seen } satisfies IncrementalState;
    }
    if (options.addGenerationPrompt ?? true) ensurePrompt();
    const kept = pieces.map((p, i) => i).filter((i) => pieces[i].length > 0);
    return { pieces: kept.map((i) => pieces[i]), ids: kept.map((i) => ids[i]) };
  }

  /**
   * The cache's state when `messages` extend the messages it rendered, unchanged, with the same options;
   * null otherwise (the caller renders from scratch). A cut inside a run of tool messages (they render
   * as one piece) cannot be resumed.
   */
  private resume(raw: unknown, messages: readonly RenderMessage[], key: string): IncrementalState | null {
    const state = raw as IncrementalState | undefined;
    if (!state || state.key !== key || messages.length < state.consumed) return null;
    for (let i = 0; i < state.consumed; i++) if (!sameMessage(state.seen[i], messages[i])) return null;
    if (state.consumed < messages.length && messages[state.consumed].role === "tool" && messages[state.consumed - 1].role === "tool") return null;
    return state;
  }

  /** Whether the tokenizer splits right before `text` (it starts with an added token that strips nothing on its left). */
  private startsAtSplit(text: string): boolean {
    return this.splitTokens.some((t) => text.startsWith(t));
  }

  /** The options a message after the sentinel renders with (without tools where the template ignores them there). */
  private segmentOptions(options: RenderOptions): RenderOptions {
    return this.toolsInSystemBlockOnly && options.tools ? { ...options, tools: undefined } : options;
  }

  private optionsKey(options: RenderOptions): string {
    return `${options.enableThinking}\u0000${options.parseToolArguments ?? false}\u0000${JSON.stringify(options.tools ?? null)}`;
  }

  /** A bounded memo (oldest entry evicted first). */
  private memo<T>(cache: Map<string, T>, key: string, make: () => T): T {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = make();
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, value);
    return value;
  }
}
