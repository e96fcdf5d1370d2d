/**
 * TEST DOUBLE — an OpenAI-compatible server that behaves like vLLM's `/v1/chat/completions` started with
 * `--enable-auto-tool-choice --tool-call-parser hermes --reasoning-parser qwen3`, serving a SCRIPTED model:
 * tests supply a function from the request to the text the model writes (think tags and `<tool_call>`
 * blocks included), and the double turns that text into the reply the way vLLM does. It is not a model.
 *
 * Enforced as vLLM's sources define it (vllm/entrypoints/openai/chat_completion/protocol.py,
 * vllm/tool_parsers/hermes_tool_parser.py, vllm/reasoning/qwen3_reasoning_parser.py), answering 400 with
 * vLLM's `{error:{message,type,param,code}}` on:
 * - `tools: []` ("must not be an empty array"), a tool that is not `{type:"function", function:{name}}`;
 * - `tool_choice` without `tools`, or "auto" when the server has no tool parser (`toolParser: null`);
 * - tool messages without `tool_call_id`, assistant `tool_calls` without ids or whose `arguments` are not
 *   a JSON string (vLLM json-decodes them for the chat template);
 * - `stream_options` without `stream`; an unknown model (404).
 * Unknown top-level fields are accepted (vLLM only logs them); they are recorded in `ignoredFields`.
 *
 * Reply shaping:
 * - reasoning (qwen3 parser): a leading `<think>` is dropped, the text before `</think>` is the reasoning
 *   and the rest the content; without `</think>` it is all reasoning when thinking is on (the default)
 *   and all content when `chat_template_kwargs.enable_thinking` is false. Returned as `reasoning` (current
 *   vLLM) or `reasoning_content` (older vLLM, SGLang) — `reasoningField`;
 * - tool calls (hermes parser, on the content, when `tools` are given and tool_choice is not "none"):
 *   every `<tool_call>` block must be JSON with `name` and `arguments`, else no calls and the whole text is
 *   content; `arguments` re-serialised with Python's json.dumps spacing; ids `chatcmpl-tool-<hex>`;
 *   content = text before the first block (null when empty); finish_reason "tool_calls";
 * - `stream: true`: SSE chunks (role, reasoning, content, tool-call name then arguments, finish) with
 *   `streamChunkDelayMs` between chunks — a slow reasoning judge — then `data: [DONE]`;
 * - `rateLimit`: the first `count` POSTs answer 429 with `Retry-After`.
 *
 * LoRA adapters at runtime (`lora`; vllm/entrypoints/serve/lora/api_router.py and
 * vllm/entrypoints/openai/models/serving.py): without `runtimeUpdating` (VLLM_ALLOW_RUNTIME_LORA_UPDATING)
 * POST /v1/load_lora_adapter is not a route (404 `{"detail":"Not Found"}`); with it, `{lora_name,
 * lora_path}` are required (422 as pydantic answers a missing field, 400 when empty), a name already
 * loaded is 400 InvalidUserInput (unless `load_inplace`), a path without adapter_config.json is 404
 * NotFoundError, an adapter whose rank exceeds --max-lora-rank or whose safetensors do not parse is 500;
 * success is 200 with a plain-text "Success: …". The server reads the path from its own filesystem —
 * `mount` maps the path as the server sees it to the test's folder. Loaded adapters are listed by
 * /v1/models (parent: the base model) and answer chat completions that name them as `model`.
 */
import http from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { parseOrderedJson, pyJsonDumps } from "../../lib/python/json";

export interface VllmRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[]; tool_call_id?: string; name?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  tool_choice?: unknown;
  stream?: boolean;
  max_tokens?: number;
  chat_template_kwargs?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What the scripted model writes for a request. */
export type ScriptedModel = (req: VllmRequest) => string | { text: string; finishReason?: "stop" | "length" } | Promise<string | { text: string; finishReason?: "stop" | "length" }>;

export interface VllmDoubleOptions {
  model: string;
  respond: ScriptedModel;
  /** null: started without a reasoning parser (think tags stay in the content). Default "qwen3". */
  reasoningParser?: "qwen3" | null;
  /** Field name of the separated reasoning. Default "reasoning" (current vLLM); "reasoning_content" for older vLLM and SGLang. */
  reasoningField?: "reasoning" | "reasoning_content";
  /** null: started without --enable-auto-tool-choice (tool_choice "auto" is refused). Default "hermes". */
  toolParser?: "hermes" | null;
  /** Answer the first `count` POSTs with 429 and this Retry-After (seconds). */
  rateLimit?: { count: number; retryAfterS: number };
  /** Delay between streamed chunks (ms). */
  streamChunkDelayMs?: number;
  /** Characters per streamed text chunk. Default 8. */
  streamChunkChars?: number;
  apiKey?: string;
  /** Replace a non-streamed reply body before it is sent (to test how clients take malformed replies). */
  mangle?: (body: Record<string, unknown>) => unknown;
  /** --enable-lora: whether the runtime routes exist (VLLM_ALLOW_RUNTIME_LORA_UPDATING), --max-lora-rank, and a mount. */
  lora?: { runtimeUpdating: boolean; maxLoraRank: number; mount?: { server: string; local: string } };
}

export interface VllmDouble {
  url: string;
  /** Every accepted chat request body, in arrival order. */
  requests: VllmRequest[];
  /** Requests refused with 400/404 and why. */
  rejected: { status: number; message: string }[];
  /** Unknown top-level request fields vLLM would ignore with a warning. */
  ignoredFields: Set<string>;
  /** 429s sent, and the most chat requests ever in flight at once. */
  stats: { rateLimited: number; maxInFlight: number };
  /** LoRA adapters loaded at runtime: name → the path as the server was given it. */
  adapters: Map<string, string>;
  /** Every load_lora_adapter request body and its answer's status. */
  loadRequests: { body: unknown; status: number }[];
  close(): Promise<void>;
}

const KNOWN_FIELDS = new Set([
  "messages", "model", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "max_tokens", "max_completion_tokens", "n",
  "presence_penalty", "response_format", "seed", "stop", "stream", "stream_options", "temperature", "top_p", "tools", "tool_choice",
  "reasoning_effort", "include_reasoning", "parallel_tool_calls", "user", "top_k", "min_p", "repetition_penalty", "stop_token_ids",
  "skip_special_tokens", "chat_template", "chat_template_kwargs", "add_generation_prompt", "continue_final_message", "structured_outputs",
  "request_id", "priority", "ignore_eos", "min_tokens", "echo", "documents",
]);

class BadRequest extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function validate(body: unknown, opts: VllmDoubleOptions, ignored: Set<string>, adapters: Map<string, string>): VllmRequest {
  if (!isRecord(body)) throw new BadRequest("request body must be a JSON object");
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.has(key)) ignored.add(key);
  if (body.model !== opts.model && !adapters.has(String(body.model))) throw new BadRequest(`The model \`${String(body.model)}\` does not exist.`, 404);
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new BadRequest("messages: field required (a non-empty list)");
  body.messages.forEach((m, i) => {
    if (!isRecord(m) || !["system", "developer", "user", "assistant", "tool"].includes(String(m.role))) throw new BadRequest(`messages.${i}.role: invalid`);
    if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string") throw new BadRequest(`messages.${i}.tool_call_id: Field required`);
      if (typeof m.content !== "string" && !Array.isArray(m.content)) throw new BadRequest(`messages.${i}.content: Field required`);
    }
    if (m.role === "assistant" && m.tool_calls !== undefined && m.tool_calls !== null) {
      if (!Array.isArray(m.tool_calls)) throw new BadRequest(`messages.${i}.tool_calls: Input should be a valid list`);
      m.tool_calls.forEach((c, k) => {
        const at = `messages.${i}.tool_calls.${k}`;
        if (!isRecord(c) || typeof c.id !== "string") throw new BadRequest(`${at}.id: Field required`);
        if (c.type !== "function") throw new BadRequest(`${at}.type: Input should be 'function'`);
        if (!isRecord(c.function) || typeof c.function.name !== "string") throw new BadRequest(`${at}.function.name: Field required`);
        if (typeof c.function.arguments !== "string") throw new BadRequest(`${at}.function.arguments: Input should be a valid string`);
        try {
          JSON.parse(c.function.arguments);
        } catch {
          throw new BadRequest(`${at}.function.arguments: not valid JSON`);
        }
      });
    }
  });
  if (body.stream_options && !body.stream) throw new BadRequest("Stream options can only be defined when `stream=True`.");
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) throw new BadRequest("`tools` must not be an empty array. Either provide at least one tool or omit the field entirely.");
    body.tools.forEach((t, i) => {
      if (!isRecord(t) || t.type !== "function" || !isRecord(t.function) || typeof t.function.name !== "string") throw new BadRequest(`tools.${i}: expected {type: "function", function: {name, ...}}`);
    });
  }
  const tools = Array.isArray(body.tools) && body.tools.length > 0;
  const toolChoice = body.tool_choice ?? (tools ? "auto" : "none");
  if (toolChoice !== "none") {
    if (!tools) throw new BadRequest("When using `tool_choice`, `tools` must be set.");
    if (toolChoice === "auto" && !opts.toolParser && opts.toolParser !== undefined)
      throw new BadRequest('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
  }
  if (body.max_tokens !== undefined && body.max_tokens !== null && (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1))
    throw new BadRequest("max_tokens: must be a positive integer");
  return body as VllmRequest;
}

/** vLLM's qwen3 reasoning parser (non-streaming). */
function splitQwen3Reasoning(output: string, thinking: boolean): { reasoning: string | null; content: string | null } {
  const start = output.indexOf("<think>");
  const rest = start >= 0 ? output.slice(start + "<think>".length) : output;
  const end = rest.indexOf("</think>");
  if (end >= 0) {
    const content = rest.slice(end + "</think>".length);
    return { reasoning: rest.slice(0, end), content: content === "" ? null : content };
  }
  return thinking ? { reasoning: rest, content: null } : { reasoning: null, content: rest };
}

/** vLLM's hermes tool parser (non-streaming). */
function hermesToolCalls(output: string): { calls: { id: string; name: string; arguments: string }[]; content: string | null } | null {
  if (!output.includes("<tool_call>")) return null;
  try {
    const calls = [...output.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)/g)].map((m) => {
      const parsed = parseOrderedJson((m[1] ?? m[2] ?? "").trim());
      if (!(parsed instanceof Map)) throw new Error("not an object");
      if (!parsed.has("name") || !parsed.has("arguments")) throw new Error("KeyError");
      return { id: `chatcmpl-tool-${randomBytes(16).toString("hex")}`, name: String(parsed.get("name")), arguments: pyJsonDumps(parsed.get("arguments")) };
    });
    const content = output.slice(0, output.indexOf("<tool_call>"));
    return { calls, content: content === "" ? null : content };
  } catch {
    return null;
  }
}

interface Shaped {
  reasoning: string | null;
  content: string | null;
  calls: { id: string; name: string; arguments: string }[];
  finishReason: string;
}

function shape(req: VllmRequest, written: { text: string; finishReason?: "stop" | "length" }, opts: VllmDoubleOptions): Shaped {
  const thinking = req.chat_template_kwargs?.enable_thinking !== false;
  const split = opts.reasoningParser === null ? { reasoning: null, content: written.text } : splitQwen3Reasoning(written.text, thinking);
  const useTools = !!req.tools?.length && (req.tool_choice ?? "auto") !== "none" && opts.toolParser !== null;
  const tools = useTools && split.content !== null ? hermesToolCalls(split.content) : null;
  return {
    reasoning: req.include_reasoning === false ? null : split.reasoning,
    content: tools ? tools.content : split.content,
    calls: tools?.calls ?? [],
    finishReason: tools ? "tool_calls" : (written.finishReason ?? "stop"),
  };
}

function chunksOf(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export async function startVllmDouble(opts: VllmDoubleOptions): Promise<VllmDouble> {
  const requests: VllmRequest[] = [];
  const rejected: VllmDouble["rejected"] = [];
  const ignoredFields = new Set<string>();
  const stats = { rateLimited: 0, maxInFlight: 0 };
  const adapters = new Map<string, string>();
  const loadRequests: VllmDouble["loadRequests"] = [];
  const reasoningField = opts.reasoningField ?? "reasoning";
  let inFlight = 0;
  let posts = 0;

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      void handle(req, res, raw).catch((e) => {
        if (!res.headersSent) json(res, 500, { error: { message: String(e), type: "InternalServerError", param: null, code: 500 } });
        else res.end();
      });
    });
  });

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return json(res, 401, { error: { message: "Unauthorized", type: "Unauthorized", param: null, code: 401 } });
    if (req.method === "GET" && req.url === "/v1/models") {
      const loras = [...adapters].map(([id, root]) => ({ id, object: "model", created: 0, owned_by: "vllm", root, parent: opts.model }));
      return json(res, 200, { object: "list", data: [{ id: opts.model, object: "model", created: 0, owned_by: "vllm", max_model_len: 32768 }, ...loras] });
    }
    if (req.method === "POST" && req.url === "/v1/load_lora_adapter" && opts.lora?.runtimeUpdating) {
      const answer = await loadAdapter(raw);
      loadRequests.push({ body: (() => { try { return JSON.parse(raw); } catch { return raw; } })(), status: answer.status });
      if (answer.status === 200) {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        return res.end(answer.text);
      }
      return json(res, answer.status, answer.body);
    }
    if (req.method === "POST" && req.url === "/v1/load_lora_adapter") return json(res, 404, { detail: "Not Found" });
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") return json(res, 404, { error: { message: "Not Found", type: "NotFoundError", param: null, code: 404 } });
    posts++;
    if (opts.rateLimit && posts <= opts.rateLimit.count) {
      stats.rateLimited++;
      return json(res, 429, { error: { message: "Too many requests, slow down", type: "RateLimitError", param: null, code: 429 } }, { "retry-after": String(opts.rateLimit.retryAfterS) });
    }
    let body: VllmRequest;
    try {
      body = validate(JSON.parse(raw), opts, ignoredFields, adapters);
    } catch (e) {
      const status = e instanceof BadRequest ? e.status : 400;
      const message = e instanceof Error ? e.message : String(e);
      rejected.push({ status, message });
      return json(res, status, { error: { message, type: status === 404 ? "NotFoundError" : "BadRequestError", param: null, code: status } });
    }
    requests.push(body);
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    try {
      const written = await opts.respond(body);
      const out = shape(body, typeof written === "string" ? { text: written } : written, opts);
      const id = `chatcmpl-${randomBytes(16).toString("hex")}`;
      const base = { id, created: Math.floor(Date.now() / 1000), model: opts.model };
      if (!body.stream) {
        const message: Record<string, unknown> = { role: "assistant", content: out.content, [reasoningField]: out.reasoning };
        if (out.calls.length) message.tool_calls = out.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
        const reply = {
          ...base,
          object: "chat.completion",
          choices: [{ index: 0, message, logprobs: null, finish_reason: out.finishReason, stop_reason: null }],
          usage: { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: 1, total_tokens: Math.ceil(raw.length / 4) + 1 },
        };
        return json(res, 200, opts.mangle ? opts.mangle(reply) : reply);
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const size = opts.streamChunkChars ?? 8;
      const send = async (delta: Record<string, unknown>, finish: string | null = null) => {
        res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`);
        if (opts.streamChunkDelayMs) await sleep(opts.streamChunkDelayMs);
      };
      await send({ role: "assistant", content: "" });
      for (const piece of chunksOf(out.reasoning ?? "", size)) await send({ [reasoningField]: piece });
      for (const piece of chunksOf(out.content ?? "", size)) await send({ content: piece });
      for (const [index, call] of out.calls.entries()) {
        await send({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name } }] });
        for (const piece of chunksOf(call.arguments, size)) await send({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
      await send({}, out.finishReason);
      res.end("data: [DONE]\n\n");
    } finally {
      inFlight--;
    }
  }

  /** vLLM's load_lora_adapter: checks, then reading the adapter from the server's filesystem. */
  async function loadAdapter(raw: string): Promise<{ status: number; text?: string; body?: unknown }> {
    const error = (status: number, type: string, message: string) => ({ status, body: { error: { message, type, param: null, code: status } } });
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return { status: 422, body: { detail: [{ type: "json_invalid", loc: ["body"], msg: "JSON decode error" }] } };
    }
    const missing = ["lora_name", "lora_path"].filter((k) => typeof b[k] !== "string");
    if (missing.length) return { status: 422, body: { detail: missing.map((k) => ({ type: "missing", loc: ["body", k], msg: "Field required" })) } };
    const name = b.lora_name as string;
    const lora = b.lora_path as string;
    if (!name || !lora) return error(400, "InvalidUserInput", "Both 'lora_name' and 'lora_path' must be provided.");
    if (!b.load_inplace && adapters.has(name)) return error(400, "InvalidUserInput", `The lora adapter '${name}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.`);
    const mount = opts.lora!.mount;
    const local = mount && lora.startsWith(mount.server) ? mount.local + lora.slice(mount.server.length) : lora;
    const fs = await import("node:fs/promises");
    const cfgText = await fs.readFile(`${local}/adapter_config.json`, "utf8").catch(() => null);
    if (cfgText === null) return error(404, "NotFoundError", `Loading lora ${name} failed: No adapter found for ${lora}`);
    const cfg = JSON.parse(cfgText) as { r?: number };
    if ((cfg.r ?? 0) > opts.lora!.maxLoraRank) return error(500, "InternalServerError", `LoRA rank ${cfg.r} is greater than max_lora_rank ${opts.lora!.maxLoraRank}.`);
    const weights = await fs.readFile(`${local}/adapter_model.safetensors`).catch(() => null);
    try {
      if (!weights) throw new Error("no adapter_model.safetensors");
      const n = Number(weights.readBigUInt64LE(0));
      JSON.parse(weights.subarray(8, 8 + n).toString("utf8"));
    } catch (e) {
      return error(500, "InternalServerError", `Loading lora ${name} failed: ${(e as Error).message}`);
    }
    adapters.set(name, lora);
    return { status: 200, text: `Success: LoRA adapter '${name}' added successfully.` };
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    rejected,
    ignoredFields,
    stats,
    adapters,
    loadRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
