/**
 * The renderer interface: how a model's chat format turns OpenAI-style messages into prompt token
 * ids, and sampled token ids back into text. Shared by the worker (act / rehearse prompts, stop
 * tokens, vocabulary checks) and, later, the server's node doctor. Nothing here loads a tokenizer.
 */

/** A tool call as OpenAI clients send it; `arguments` may be a JSON string or an object. */
export interface RenderToolCall {
  id?: string;
  type?: "function";
  function: { name: string; arguments: string | Record<string, unknown> };
}

/** An OpenAI-style chat message, plus the `reasoning_content` field that reasoning models use. */
export interface RenderMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: RenderToolCall[];
  reasoning_content?: string | null;
}

/** An OpenAI function-tool schema; the template renders it (Qwen3: one JSON line per tool). */
export interface RenderTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; [k: string]: unknown };
}

export interface RenderOptions {
  tools?: RenderTool[];
  /**
   * Qwen3's `enable_thinking` template switch. `undefined` leaves it unset, which the Qwen3 template
   * treats as on (exactly what HF apply_chat_template does without the kwarg).
   */
  enableThinking?: boolean;
  /** Append the assistant header for the next generation (default true). */
  addGenerationPrompt?: boolean;
  /**
   * How earlier turns are rendered:
   * - "template": one apply_chat_template call over all messages (what HF and vLLM do; Qwen3 drops the
   *   reasoning of assistant turns before the last user message);
   * - "incremental": the EnvACE reference's caller token buffer — the leading messages render together,
   *   every later message renders on its own after a fixed two-message sentinel, so each past
   *   assistant turn keeps its `<think>` text. See docs/ARCHITECTURE.md, *Deliberate differences from the reference*.
   * Default "template".
   */
  history?: "template" | "incremental";
  /**
   * Parse tool-call `arguments` given as JSON strings into objects before rendering, so the template
   * writes them with its own `tojson` (vLLM does this for every model). Default false: HF renders the
   * string verbatim (Qwen3) or JSON-encodes it again (Llama 3.1).
   */
  parseToolArguments?: boolean;
}

/**
 * One conversation's render state (a rollout's act prompts): what the last prompt rendered, so the next
 * one that extends it renders only the messages it adds. Opaque; a renderer that cannot use it ignores it.
 */
export interface PromptCache {
  state?: unknown;
}

/** A sampled text split into the model's reasoning and the visible answer. */
export interface SplitResponse {
  /** Text inside the model's reasoning block, or null when the model wrote none. */
  reasoning: string | null;
  /** The text after the reasoning block (the whole text when there is none). */
  content: string;
}

export interface ChatRenderer {
  /** Renderer name, used in every error message ("qwen3", "llama3.1", "tiny-gpt", "hf:<dir>"). */
  readonly name: string;
  /** Human-readable vocabulary name for messages ("Qwen3", "Llama 3.1", "tiny-gpt byte"). */
  readonly vocabularyName: string;
  /** Number of ids the tokenizer can decode: valid ids are 0 … vocabSize − 1. */
  readonly vocabSize: number;
  /** Ids that end a generation (from the tokenizer: Qwen3 <|im_end|> 151645, <|endoftext|> 151643). */
  readonly stopTokens: readonly number[];
  /** The model's context window in tokens when the renderer knows it (null: ask the node). */
  readonly contextLength: number | null;
  /** Whether the template has a thinking switch (Qwen3's enable_thinking). */
  readonly supportsThinking: boolean;
  /** True when every id is an integer inside the vocabulary. */
  isValidToken(id: number): boolean;
  /**
   * Render and tokenise once: the prompt ids to send to the sampler. With a `cache` (one per rollout) and
   * "incremental" history, a prompt that extends the cache's last one renders only its new messages;
   * the ids are always those of a render from scratch.
   */
  renderPrompt(messages: readonly RenderMessage[], options?: RenderOptions, cache?: PromptCache): number[];
  /** The rendered prompt text (exactly HF apply_chat_template(..., tokenize=False) in "template" mode). */
  renderText(messages: readonly RenderMessage[], options?: RenderOptions): string;
  /** Token count of a plain text (no template), for budgets. */
  countTokens(text: string): number;
  /**
   * Sampled ids → text. Special tokens (stop tokens included) are dropped; added tokens that are not
   * special (Qwen3's <think>, <tool_call>) are kept. Throws TokenOutOfVocabularyError for any id
   * outside the vocabulary.
   */
  decode(ids: readonly number[]): string;
  /** Reasoning vs visible content of a sampled text (Qwen3: the <think>…</think> block). */
  splitResponse(text: string): SplitResponse;
}

/** Sampled ids the renderer cannot decode: the node serves another model than the one rendered for. */
export class TokenOutOfVocabularyError extends Error {
  readonly code = "TOKENS_OUT_OF_VOCABULARY" as const;
  constructor(
    readonly renderer: string,
    readonly vocabularyName: string,
    readonly vocabSize: number,
    readonly badIds: number[],
    /** Who sampled them (e.g. `node "gpu1", model "Qwen/Qwen3-8B"`), when known. */
    readonly owner?: string,
  ) {
    const shown = badIds.slice(0, 5).join(", ") + (badIds.length > 5 ? `, … (${badIds.length} in all)` : "");
    super(
      `${owner ? `${owner}: ` : ""}node returned token ids outside the ${vocabularyName} vocabulary (${shown}; valid ids are 0–${vocabSize - 1}, renderer "${renderer}") — is the node's model the one this run renders for?`,
    );
    this.name = "TokenOutOfVocabularyError";
  }
}

/** A renderer that cannot be set up: unknown model, missing or malformed tokenizer files, bad template. */
export class RendererConfigError extends Error {
  readonly code = "RENDERER_CONFIG" as const;
  constructor(message: string) {
    super(message);
    this.name = "RendererConfigError";
  }
}

/** Messages the template cannot render (e.g. Llama 3.1 with two tool calls in one message). */
export class RenderError extends Error {
  readonly code = "RENDER_FAILED" as const;
  constructor(
    readonly renderer: string,
    message: string,
  ) {
    super(`renderer "${renderer}": ${message}`);
    this.name = "RenderError";
  }
}

/** The same renderer, whose vocabulary errors name who sampled the ids (a node and its model). */
export function attributeRenderer(renderer: ChatRenderer, owner: string): ChatRenderer {
  const attributed = Object.create(renderer) as ChatRenderer;
  (attributed as { decode: ChatRenderer["decode"] }).decode = (ids) => {
    try {
      return renderer.decode(ids);
    } catch (e) {
      if (e instanceof TokenOutOfVocabularyError && !e.owner) throw new TokenOutOfVocabularyError(e.renderer, e.vocabularyName, e.vocabSize, e.badIds, owner);
      throw e;
    }
  };
  return attributed;
}
