/**
 * ChatClient (contracts/chat.ts) over OpenAI-compatible `/v1/chat/completions`: judges, user and tool
 * simulators, and policies on inference-only nodes (vLLM, SGLang, OpenAI, the embedded node).
 *
 * Transport: non-streamed calls (the default, and the policy's path at hundreds of rollouts in flight) go
 * over a lean HTTP/1.1 client on node:net/tls sockets with a keep-alive pool per node sized to its
 * concurrency (lib/clients/http-post.ts);
 * streamed ones through the `openai` package's SSE. Everything a run depends on is decided here:
 * - tools go out as function-calling `tools`; `tool_calls` and the reasoning (`reasoning_content`, or
 *   `reasoning` in newer vLLM) come back separately in the reply;
 * - per-node settings (contracts/node-settings.ts `openai`): vendor extras merged into the body,
 *   streaming, timeouts, retries and a concurrency cap shared by every client of the node in this process;
 * - time limits are owned here (`ownsTimeouts`): the clock starts when the request is sent, not while it
 *   waits for a slot, and a call with a token budget may take requestTimeoutS + maxTokens /
 *   minDecodeTokensPerS (long reasoning replies are not cut); streamed replies also fail after
 *   requestTimeoutS of silence;
 * - 408/409/429/5xx and connection errors are retried with exponential backoff, `Retry-After` /
 *   `retry-after-ms` honoured, each wait at most maxRetryWaitS, at most maxRetries times; the slot is
 *   released while waiting;
 * - every reply (and every streamed chunk) is validated with zod; a bad one is an error naming the node.
 */
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { nodeBaseUrl } from "../node-url";
import { HttpConnectionError, HttpPool, type HeaderLookup } from "./http-post";
import { z } from "zod";
import { openAINodeSettingsSchema, type OpenAINodeSettings } from "../../contracts/node-settings";
import type { ChatClient, ChatMessage, ChatReply, ChatRequest } from "../../contracts/chat";

export interface OpenAIChatOptions {
  /** The OpenAI API root, e.g. `http://host:8000/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** The registered node's name: names it in errors and keys the shared concurrency cap. */
  nodeName?: string;
  /** Time limit for calls that set none themselves (the node's requestTimeoutS still applies when longer). */
  defaultTimeoutMs?: number;
  /** The node's `openai` settings (defaults for anything missing). */
  settings?: Partial<OpenAINodeSettings>;
  /** Waits between retries (tests replace it); must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The node's limit across processes (the worker's leases), on top of this process's own slots. */
  sharedSlots?: SharedSlots;
}

/** A chat call that failed: `retryable` says whether the client would have tried again. */
export class ChatCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly kind: "http" | "timeout" | "connection" | "malformed" | "aborted" = "http",
  ) {
    super(message);
    this.name = "ChatCallError";
  }
}

// ------------------------------------------------------------------ messages out

/**
 * Engine messages → OpenAI messages, one to one. Tool messages need a `tool_call_id`: the message's own
 * (the chat-policy adapter pairs them with the preceding assistant's calls), else its tool name.
 */
export function toOpenAIMessages(messages: ChatMessage[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  return messages.map((m): OpenAI.Chat.ChatCompletionMessageParam => {
    switch (m.role) {
      case "system":
        return { role: "system", content: m.content };
      case "user":
        return { role: "user", content: m.content, ...(m.name ? { name: m.name } : {}) };
      case "assistant":
        return { role: "assistant", content: m.content, ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}) };
      case "tool":
        return { role: "tool", content: m.content, tool_call_id: m.tool_call_id ?? m.name ?? "call" };
    }
  });
}

// ------------------------------------------------------------------ replies in

const toolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.literal("function").nullish(),
  function: z.object({ name: z.string().min(1, "a tool call has no name"), arguments: z.string({ invalid_type_error: "must be a JSON string" }) }),
});

const replyMessageSchema = z.object({
  role: z.string().nullish(),
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
});

export const completionSchema = z.object({
  choices: z.array(z.object({ message: replyMessageSchema, finish_reason: z.string().nullish() })).min(1, "the reply has no choices"),
});

const chunkSchema = z.object({
  choices: z.array(
    z.object({
      index: z.number().int().nullish(),
      delta: z
        .object({
          content: z.string().nullish(),
          reasoning_content: z.string().nullish(),
          reasoning: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                index: z.number().int().min(0),
                id: z.string().nullish(),
                type: z.literal("function").nullish(),
                function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
              }),
            )
            .nullish(),
        })
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
});

function issueText(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "(root)"}: ${issue.message}`;
}

function finishReasonOf(reason: string | null | undefined): ChatReply["finishReason"] {
  return reason === "length" ? "length" : reason === "tool_calls" ? "tool_calls" : "stop";
}

/**
 * The content as the reply's text. When the node split the reasoning off, the newlines that separated
 * it from the answer (Qwen3 writes `</think>\n\n`) are not part of the answer: a judge's verdict or a
 * user simulator's message starts at its first character.
 */
function contentText(content: string, reasoning: string | null | undefined): string {
  return typeof reasoning === "string" ? content.replace(/^\n+/, "") : content;
}

type Completion = z.infer<typeof completionSchema>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const nullishString = (v: unknown) => v === undefined || v === null || typeof v === "string";

/**
 * The completion schema's checks written out by hand: true only for a value `completionSchema` accepts
 * (the unit test holds the two together). Zod costs more than the rest of a reply's handling at hundreds
 * of calls per second, so it runs only to word the error for a reply that fails here.
 */
export function isWellFormedCompletion(raw: unknown): raw is Completion {
  if (!isObject(raw) || !Array.isArray(raw.choices) || raw.choices.length === 0) return false;
  for (const choice of raw.choices) {
    if (!isObject(choice) || !nullishString(choice.finish_reason) || !isObject(choice.message)) return false;
    const m = choice.message;
    if (!nullishString(m.role) || !nullishString(m.content) || !nullishString(m.reasoning_content) || !nullishString(m.reasoning)) return false;
    if (m.tool_calls === undefined || m.tool_calls === null) continue;
    if (!Array.isArray(m.tool_calls)) return false;
    for (const c of m.tool_calls) {
      if (!isObject(c) || !nullishString(c.id) || !(c.type === undefined || c.type === null || c.type === "function") || !isObject(c.function)) return false;
      if (typeof c.function.name !== "string" || c.function.name.length === 0 || typeof c.function.arguments !== "string") return false;
    }
  }
  return true;
}

/** The reply of a validated non-streamed completion (first choice). */
export function replyFromCompletion(raw: unknown, label: string): ChatReply {
  let completion: Completion;
  if (isWellFormedCompletion(raw)) completion = raw;
  else {
    const parsed = completionSchema.safeParse(raw);
    if (!parsed.success) throw new ChatCallError(`${label}: malformed chat completion: ${issueText(parsed.error)}`, undefined, "malformed");
    completion = parsed.data;
  }
  const choice = completion.choices[0]!;
  const m = choice.message;
  const reasoning = m.reasoning_content ?? m.reasoning;
  const calls = m.tool_calls ?? [];
  return {
    text: contentText(m.content ?? "", reasoning),
    ...(typeof reasoning === "string" ? { reasoning } : {}),
    ...(calls.length ? { toolCalls: calls.map((c, k) => ({ id: c.id || `call_${k}`, name: c.function.name, arguments: c.function.arguments })) } : {}),
    finishReason: calls.length && choice.finish_reason !== "length" ? "tool_calls" : finishReasonOf(choice.finish_reason),
  };
}

/** Accumulates streamed chunks (first choice) into a reply. */
export class StreamedReply {
  private content = "";
  private reasoning: string | undefined;
  private finish: string | null | undefined;
  private readonly calls: { id?: string; name: string; arguments: string }[] = [];

  constructor(private readonly label: string) {}

  add(raw: unknown): void {
    const parsed = chunkSchema.safeParse(raw);
    if (!parsed.success) throw new ChatCallError(`${this.label}: malformed stream chunk: ${issueText(parsed.error)}`, undefined, "malformed");
    for (const choice of parsed.data.choices) {
      if ((choice.index ?? 0) !== 0) continue;
      const d = choice.delta;
      if (d?.content) this.content += d.content;
      const r = d?.reasoning_content ?? d?.reasoning;
      if (typeof r === "string") this.reasoning = (this.reasoning ?? "") + r;
      for (const t of d?.tool_calls ?? []) {
        const call = (this.calls[t.index] ??= { name: "", arguments: "" });
        if (t.id && !call.id) call.id = t.id;
        if (t.function?.name) call.name += t.function.name;
        if (t.function?.arguments) call.arguments += t.function.arguments;
      }
      if (choice.finish_reason) this.finish = choice.finish_reason;
    }
  }

  reply(): ChatReply {
    if (this.finish === undefined || this.finish === null)
      throw new ChatCallError(`${this.label}: the stream ended before a finish_reason (connection cut mid-reply?)`, undefined, "connection");
    const calls = this.calls.filter(Boolean);
    const nameless = calls.findIndex((c) => !c.name);
    if (nameless >= 0) throw new ChatCallError(`${this.label}: malformed stream: tool call ${nameless} has no name`, undefined, "malformed");
    return {
      text: contentText(this.content, this.reasoning),
      ...(this.reasoning !== undefined ? { reasoning: this.reasoning } : {}),
      ...(calls.length ? { toolCalls: calls.map((c, k) => ({ id: c.id || `call_${k}`, name: c.name, arguments: c.arguments })) } : {}),
      finishReason: calls.length && this.finish !== "length" ? "tool_calls" : finishReasonOf(this.finish),
    };
  }
}

// ------------------------------------------------------------------ per-node concurrency

/** A counting semaphore whose limit can change (node settings edited between runs). */
class NodeSlots {
  private active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(public limit: number) {}

  setLimit(limit: number): void {
    this.limit = limit;
    while (this.active < this.limit && this.waiters.length) {
      this.active++;
      this.waiters.shift()!();
    }
  }

  /**
   * The release function of one granted slot (callable more than once, acting once). A freed slot passes
   * straight to the next waiter unless the limit was lowered meanwhile. Returned anonymous: a named
   * closure per call costs a defineProperty of its name under tsx (keepNames).
   */
  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (this.waiters.length && this.active <= this.limit) this.waiters.shift()!();
      else this.active--;
    };
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError(signal));
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.releaser());
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortedError(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(grant);
    });
  }
}

/**
 * Slots shared beyond this process (worker/runner/node-slots.ts: leases in Postgres, so a node's limit
 * holds across every worker). Taken after the process's own slot, released with it.
 */
export interface SharedSlots {
  acquire(signal?: AbortSignal): Promise<() => void>;
}

const slotsByNode = new Map<string, NodeSlots>();
const poolsByNode = new Map<string, HttpPool>();

/** The process-wide keep-alive pool of one node, as many sockets as the node's concurrency. */
function poolFor(key: string, base: string, maxSockets: number): HttpPool {
  let pool = poolsByNode.get(key);
  if (!pool) poolsByNode.set(key, (pool = new HttpPool(new URL(base), maxSockets)));
  else pool.setMaxSockets(maxSockets);
  return pool;
}

/** A non-2xx answer on the plain (http-post) path (the openai package's APIError on the streamed one). */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: HeaderLookup,
    readonly serverText: string,
  ) {
    super(serverText);
    this.name = "HttpStatusError";
  }
}

/** The server's words from an error body: `{error:{message}}`, `{error:"…"}`, `{message}`, `{detail}`, else the text. */
function errorBodyText(body: string, status: number): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text ? (text.length > 300 ? `${text.slice(0, 300)}…` : text) : `status ${status} with no body`;
  }
  const o = parsed as { error?: unknown; message?: unknown; detail?: unknown } | null;
  const inner = o && typeof o.error === "object" && o.error !== null ? (o.error as { message?: unknown }) : undefined;
  if (typeof inner?.message === "string") return inner.message;
  if (typeof o?.error === "string") return o.error;
  if (typeof o?.message === "string") return o.message;
  if (typeof o?.detail === "string") return o.detail;
  return JSON.stringify(parsed).slice(0, 300);
}

/** The process-wide slots of one node (created on first use; the latest settings set the limit). */
function slotsFor(key: string, limit: number): NodeSlots {
  let slots = slotsByNode.get(key);
  if (!slots) slotsByNode.set(key, (slots = new NodeSlots(limit)));
  else if (slots.limit !== limit) slots.setLimit(limit);
  return slots;
}

function slotKey(nodeName: string | undefined, baseUrl: string): string {
  return `${nodeName ?? ""}@${baseUrl.replace(/\/+$/, "")}`;
}

// ------------------------------------------------------------------ retries

function abortedError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new ChatCallError("the call was cancelled", undefined, "aborted");
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Milliseconds the server asked us to wait (`retry-after-ms`, `retry-after` in seconds or as a date). */
export function retryAfterMs(headers: HeaderLookup | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get("retry-after-ms"));
  if (headers?.get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

const RETRYABLE_STATUS = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

// ------------------------------------------------------------------ the client

export class OpenAIChatClient implements ChatClient {
  readonly ownsTimeouts = true;
  readonly settings: OpenAINodeSettings;
  private readonly client: OpenAI;
  private readonly pool: HttpPool;
  private readonly headers: Record<string, string>;
  private readonly slots: NodeSlots;
  private readonly label: string;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly opts: OpenAIChatOptions) {
    this.settings = openAINodeSettingsSchema.parse(opts.settings ?? {});
    // A base without query or fragment (lib/node-url.ts), so the client's own `${baseURL}/chat/completions` stays a path.
    const baseURL = nodeBaseUrl(opts.baseUrl, opts.nodeName);
    this.client = new OpenAI({ baseURL, apiKey: opts.apiKey || "not-needed", maxRetries: 0, timeout: 24 * 3600_000 });
    this.slots = slotsFor(slotKey(opts.nodeName, baseURL), this.settings.maxConcurrency);
    this.pool = poolFor(slotKey(opts.nodeName, baseURL), baseURL, this.settings.maxConcurrency);
    this.headers = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
    this.label = `${opts.nodeName ? `node "${opts.nodeName}"` : baseURL} (model ${opts.model})`;
    this.sleep = opts.sleep ?? abortableSleep;
  }

  /** How long one attempt may take: the longer of the caller's and the node's limit, plus time to decode the budget. */
  deadlineMs(req: Pick<ChatRequest, "timeoutMs" | "maxTokens">): { totalMs: number; idleMs: number } {
    const base = Math.max(req.timeoutMs ?? this.opts.defaultTimeoutMs ?? 0, this.settings.requestTimeoutS * 1000);
    const decode = req.maxTokens ? (req.maxTokens / this.settings.minDecodeTokensPerS) * 1000 : 0;
    // setTimeout fires at once beyond 2^31-1 ms: clamp (about 24 days).
    return { totalMs: Math.min(Math.ceil(base + decode), 2 ** 31 - 1), idleMs: base };
  }

  /** The request body: vendor extras first, then what this call sets (the settings schema refuses overlaps). */
  requestBody(req: ChatRequest): Record<string, unknown> {
    return {
      ...this.settings.extraBody,
      model: this.opts.model,
      messages: toOpenAIMessages(req.messages),
      ...(req.tools?.length ? { tools: req.tools } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.topP !== undefined ? { top_p: req.topP } : {}),
      ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
      ...(req.stop?.length ? { stop: req.stop } : {}),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
      ...(req.jsonSchema
        ? { response_format: { type: "json_schema", json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: req.jsonSchema.strict ?? true } } }
        : {}),
      ...(this.settings.stream ? { stream: true } : {}),
    };
  }

  async complete(req: ChatRequest): Promise<ChatReply> {
    const body = this.requestBody(req);
    const limits = this.deadlineMs(req);
    const { maxRetries, maxRetryWaitS } = this.settings;
    for (let attempt = 0; ; attempt++) {
      const releaseLocal = await this.slots.acquire(req.signal);
      let releaseShared: () => void;
      try {
        releaseShared = this.opts.sharedSlots ? await this.opts.sharedSlots.acquire(req.signal) : () => {};
      } catch (e) {
        releaseLocal();
        throw e;
      }
      let error: unknown;
      try {
        return await this.attempt(body, limits, req.signal);
      } catch (e) {
        error = e;
      } finally {
        releaseShared();
        releaseLocal();
      }
      const wait = this.retryWaitMs(error, attempt);
      if (wait === undefined || attempt >= maxRetries) throw this.describe(error, attempt + 1);
      await this.sleep(Math.min(wait, maxRetryWaitS * 1000), req.signal);
    }
  }

  /** Wait before the next attempt, or undefined when the error is not worth retrying. */
  private retryWaitMs(error: unknown, attempt: number): number | undefined {
    const backoff = Math.min(500 * 2 ** attempt, this.settings.maxRetryWaitS * 1000) * (0.8 + 0.4 * Math.random());
    if (error instanceof HttpStatusError || (error instanceof APIError && typeof error.status === "number")) {
      if (!RETRYABLE_STATUS(error.status!)) return undefined;
      return retryAfterMs(error.headers ?? undefined) ?? backoff;
    }
    if (error instanceof HttpConnectionError) return backoff;
    if (error instanceof APIConnectionError && !(error instanceof APIUserAbortError)) return backoff;
    if (error instanceof ChatCallError && error.kind === "connection") return backoff;
    return undefined;
  }

  private describe(error: unknown, attempts: number): Error {
    if (error instanceof ChatCallError) return error;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
    if (error instanceof APIUserAbortError) return new ChatCallError(`${this.label}: the call was cancelled`, undefined, "aborted");
    if (error instanceof APIConnectionError || error instanceof HttpConnectionError) {
      return new ChatCallError(`${this.label}: cannot reach the node${tries}: ${causeText(error)}`, undefined, "connection");
    }
    if (error instanceof HttpStatusError) return new ChatCallError(`${this.label}: HTTP ${error.status}${tries}: ${error.serverText}`, error.status, "http");
    if (error instanceof APIError && typeof error.status === "number") {
      return new ChatCallError(`${this.label}: HTTP ${error.status}${tries}: ${serverMessage(error)}`, error.status, "http");
    }
    if (error instanceof APIError) return new ChatCallError(`${this.label}: ${serverMessage(error)}`, undefined, "http");
    return error instanceof Error ? error : new Error(String(error));
  }

  /** One HTTP attempt under the time limits; the caller's signal cancels it. */
  private attempt(body: Record<string, unknown>, limits: { totalMs: number; idleMs: number }, outer?: AbortSignal): Promise<ChatReply> {
    if (outer?.aborted) return Promise.reject(abortedError(outer));
    return this.settings.stream ? this.attemptStreamed(body, limits, outer) : this.attemptPlain(body, limits, outer);
  }

  /**
   * A non-streamed attempt on the node's keep-alive pool. Per call: one JSON.stringify of the body, one
   * timer, one JSON.parse and the reply's validation; no AbortController, no web streams.
   */
  private async attemptPlain(body: Record<string, unknown>, limits: { totalMs: number }, outer?: AbortSignal): Promise<ChatReply> {
    const call = this.pool.post("chat/completions", JSON.stringify(body), this.headers);
    const total = setTimeout(
      () => call.abort(new ChatCallError(`${this.label}: no complete reply within ${Math.round(limits.totalMs / 1000)} s`, undefined, "timeout")),
      limits.totalMs,
    );
    // Only with a signal (a judge's, a cancelled run's); unnamed, so no defineProperty per call under tsx.
    const onOuterAbort = outer ? () => call.abort(abortedError(outer)) : undefined;
    if (onOuterAbort) outer!.addEventListener("abort", onOuterAbort, { once: true });
    try {
      const res = await call.reply;
      if (res.status < 200 || res.status > 299) throw new HttpStatusError(res.status, res.headers, errorBodyText(res.body, res.status));
      let raw: unknown;
      try {
        raw = JSON.parse(res.body);
      } catch {
        throw new ChatCallError(`${this.label}: malformed chat completion: the body is not JSON (${JSON.stringify(res.body.slice(0, 80))})`, undefined, "malformed");
      }
      return replyFromCompletion(raw, this.label);
    } finally {
      clearTimeout(total);
      if (onOuterAbort) outer!.removeEventListener("abort", onOuterAbort);
    }
  }

  /** A streamed attempt (the openai package's SSE): the total limit, and the idle limit between chunks. */
  private async attemptStreamed(body: Record<string, unknown>, limits: { totalMs: number; idleMs: number }, outer?: AbortSignal): Promise<ChatReply> {
    const controller = new AbortController();
    let timedOut: string | undefined;
    const expire = (why: string) => {
      timedOut = why;
      controller.abort();
    };
    const onOuterAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    const total = setTimeout(() => expire(`no complete reply within ${Math.round(limits.totalMs / 1000)} s`), limits.totalMs);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const kick = () => {
      clearTimeout(idle);
      idle = setTimeout(() => expire(`the stream was silent for ${Math.round(limits.idleMs / 1000)} s`), limits.idleMs);
    };
    try {
      kick();
      const stream = await this.client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming, { signal: controller.signal });
      const reply = new StreamedReply(this.label);
      for await (const chunk of stream) {
        kick();
        reply.add(chunk);
      }
      // The package ends the iteration quietly when the request is aborted: say why.
      if (timedOut) throw new ChatCallError(`${this.label}: ${timedOut}`, undefined, "timeout");
      if (outer?.aborted) throw abortedError(outer);
      return reply.reply();
    } catch (e) {
      if (timedOut) throw new ChatCallError(`${this.label}: ${timedOut}`, undefined, "timeout");
      if (outer?.aborted) throw abortedError(outer);
      throw e;
    } finally {
      clearTimeout(total);
      clearTimeout(idle);
      outer?.removeEventListener("abort", onOuterAbort);
    }
  }
}

/** The server's own words: OpenAI-style `{error:{message}}`, vLLM's older `{message}`, else the package's text. */
function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown; detail?: unknown } | undefined;
  if (body && typeof body.message === "string") return body.message;
  if (body && typeof body.detail === "string") return body.detail;
  return error.message;
}

/** The innermost cause's message (fetch wraps the socket error, e.g. ECONNREFUSED, twice). */
function causeText(error: Error): string {
  let inner: Error = error;
  for (let depth = 0; depth < 5; depth++) {
    const cause = (inner as { cause?: unknown }).cause;
    if (!(cause instanceof Error)) break;
    inner = cause;
  }
  return inner.message;
}

export function createOpenAIChatClient(opts: OpenAIChatOptions): OpenAIChatClient {
  return new OpenAIChatClient(opts);
}
