/**
 * The doctor's OpenAI-compatible checks, through the client the worker uses for judges, simulators and
 * chat policies (lib/clients/openai-chat.ts) with the node's own `openai` settings (vendor extras such
 * as chat_template_kwargs are sent as a run would send them):
 *
 * - models: GET /v1/models answers with a model list that includes the model;
 * - chat: a plain chat round trip;
 * - reasoning: reasoning comes back in its own field (reasoning_content / reasoning), not as <think>
 *   text inside the answer (vLLM/SGLang without a reasoning parser). Reported, needed by no role: the
 *   engine strips <think> blocks from replies as the reference does, so a leak costs tokens, not runs;
 * - tool-calling (policies): a function tool is sent and tool_calls come back, parsed by the server
 *   (vLLM needs --enable-auto-tool-choice --tool-call-parser hermes).
 */
import { z } from "zod";
import { nodeEndpoint } from "../node-url";
import type { NodeSettings } from "../../contracts/node-settings";
import { ChatCallError, createOpenAIChatClient } from "../clients/openai-chat";
import type { NodeRole } from "../node-refs";
import type { DoctorCheck, DoctorCheckId, DoctorFacts } from "./report";
import type { ToolSchema } from "../../contracts/chat";

export interface OpenAITarget {
  kind: "openai" | "embedded";
  url: string;
  apiKey?: string;
  nodeName: string;
  settings: NodeSettings;
}

export interface OpenAIDoctorOptions {
  timeoutMs: number;
  fetch?: typeof fetch;
}

const modelsReply = z.object({ data: z.array(z.object({ id: z.string().min(1) })) });

export const DOCTOR_TOOL: ToolSchema = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather in a city.",
    parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
  },
};

const ALL_ROLES: NodeRole[] = ["policy", "tool simulator", "user simulator", "judge"];
/** On the embedded node the policy samples over the Tinker protocol; its /v1 serves judges and simulators. */
const AUX_ROLES: NodeRole[] = ["tool simulator", "user simulator", "judge"];

/** The error's message, with the socket error fetch hides in its cause ("fetch failed (connect ECONNREFUSED …)"). */
function errText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  let inner: unknown = e;
  for (let depth = 0; depth < 5 && inner instanceof Error && inner.cause instanceof Error; depth++) inner = inner.cause;
  return inner !== e && inner instanceof Error ? `${e.message} (${inner.message})` : e.message;
}
const quote = (text: string, max = 80) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

export async function openAIChecks(target: OpenAITarget, model: string | null, o: OpenAIDoctorOptions): Promise<{ checks: DoctorCheck[]; facts: Partial<DoctorFacts> }> {
  const checks: DoctorCheck[] = [];
  const facts: Partial<DoctorFacts> = {};
  const roles = target.kind === "embedded" ? AUX_ROLES : ALL_ROLES;
  const add = (check: DoctorCheckId, status: DoctorCheck["status"], reason: string, started?: number, neededBy: NodeRole[] = roles) =>
    checks.push({ check, protocol: "openai", status, reason, neededBy, ...(started !== undefined ? { ms: Date.now() - started } : {}) });
  const toolRoles: NodeRole[] = target.kind === "embedded" ? [] : ["policy"];
  const node = `node "${target.nodeName}"`;
  const fetchImpl = o.fetch ?? fetch;

  // models
  let started = Date.now();
  try {
    // Joined onto the node's normal base URL (lib/node-url.ts); a malformed one fails this check.
    const res = await fetchImpl(nodeEndpoint(target.url, "v1/models"), {
      headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {},
      signal: AbortSignal.timeout(o.timeoutMs),
    });
    if (!res.ok) throw new Error(`GET /v1/models answered HTTP ${res.status}${res.status === 401 || res.status === 403 ? " (check the node's API key)" : ""}`);
    const body: unknown = await res.json().catch(() => {
      throw new Error("GET /v1/models did not return JSON");
    });
    const parsed = modelsReply.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`GET /v1/models returned an unexpected shape (${issue.path.join(".") || "(root)"}: ${issue.message})`);
    }
    facts.servedModels = parsed.data.data.map((m) => m.id);
  } catch (e) {
    const timedOut = e instanceof Error && e.name === "TimeoutError";
    add("models", "failed", `${node}: ${timedOut ? `GET /v1/models: no answer within ${Math.round(o.timeoutMs / 1000)} s` : errText(e)}`, started);
    add("chat", "skipped", "needs /v1/models to answer");
    add("reasoning", "skipped", "needs /v1/models to answer", undefined, []);
    add("tool-calling", "skipped", "needs /v1/models to answer", undefined, toolRoles);
    return { checks, facts };
  }
  const served = facts.servedModels;
  const listed = served.slice(0, 6).join(", ") + (served.length > 6 ? `, … (${served.length})` : "");
  if (!model) {
    add("models", "ok", `/v1/models lists ${served.length} model(s): ${listed || "none"}`, started);
    add("chat", "skipped", "no model named: name one to check chat and tool calling");
    add("reasoning", "skipped", "no model named", undefined, []);
    add("tool-calling", "skipped", "no model named", undefined, toolRoles);
    return { checks, facts };
  }
  if (!served.includes(model)) {
    add("models", "failed", `${node} does not serve "${model}"; /v1/models lists: ${listed || "nothing"}`, started);
    add("chat", "skipped", "needs a model the node serves");
    add("reasoning", "skipped", "needs a model the node serves", undefined, []);
    add("tool-calling", "skipped", "needs a model the node serves", undefined, toolRoles);
    return { checks, facts };
  }
  add("models", "ok", `/v1/models lists "${model}"${served.length > 1 ? ` (of ${served.length})` : ""}`, started);

  const chat = createOpenAIChatClient({
    baseUrl: nodeEndpoint(target.url, "v1"),
    apiKey: target.apiKey,
    model,
    nodeName: target.nodeName,
    // The node's own settings (as a run sends), with retries bounded so a check ends in reasonable time.
    settings: {
      ...target.settings.openai,
      requestTimeoutS: Math.max(1, Math.ceil(o.timeoutMs / 1000)),
      maxRetries: Math.min(3, target.settings.openai.maxRetries),
      maxRetryWaitS: Math.min(10, target.settings.openai.maxRetryWaitS),
    },
  });

  // chat + reasoning
  started = Date.now();
  try {
    const reply = await chat.complete({
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "Say hello in one short sentence." },
      ],
      maxTokens: 256,
      temperature: 0.6,
      timeoutMs: o.timeoutMs,
    });
    const visible = reply.text.trim();
    add("chat", "ok", `a chat completion came back (finish ${reply.finishReason ?? "unknown"}): ${visible ? quote(visible) : "no visible text (the budget went to reasoning)"}`, started);
    if (/<\/?think>/.test(reply.text))
      add(
        "reasoning",
        "failed",
        "reasoning came back inside the answer as <think> text: the server splits no reasoning off (vLLM/SGLang: start with --reasoning-parser qwen3 for Qwen3), or turn thinking off in the node's extraBody (chat_template_kwargs.enable_thinking: false); runs still work (the engine strips <think> blocks) but pay for the tokens",
        undefined,
        [],
      );
    else if (reply.reasoning !== undefined) add("reasoning", "ok", `reasoning came back in its own field (${reply.reasoning.length} characters), separate from the answer`, undefined, []);
    else add("reasoning", "ok", "no reasoning in the reply (thinking off, or a model without reasoning); nothing leaked into the answer", undefined, []);
  } catch (e) {
    add("chat", "failed", `chat round trip failed: ${errText(e)}`, started);
    add("reasoning", "skipped", "needs a chat reply", undefined, []);
  }

  // tool-calling
  if (target.kind === "embedded") {
    add("tool-calling", "skipped", "not needed: a policy on the embedded node samples over the Tinker protocol (its /v1 tool parsing has its own tests)", undefined, []);
    return { checks, facts };
  }
  started = Date.now();
  try {
    const reply = await chat.complete({
      messages: [
        { role: "system", content: "You are a helpful assistant. Use the available tools to answer." },
        { role: "user", content: "What is the weather in Paris right now? Call the get_weather tool." },
      ],
      tools: [DOCTOR_TOOL],
      maxTokens: 1024,
      temperature: 0.6,
      timeoutMs: o.timeoutMs,
    });
    const call = reply.toolCalls?.[0];
    if (call) {
      let args: unknown;
      try {
        args = JSON.parse(call.arguments);
      } catch {
        args = undefined;
      }
      if (call.name !== DOCTOR_TOOL.function.name || !args || typeof args !== "object" || Array.isArray(args))
        add("tool-calling", "failed", `a tool call came back malformed: ${call.name}(${quote(call.arguments)}) — expected get_weather with a JSON object of arguments`, started, toolRoles);
      else add("tool-calling", "ok", `tools sent, tool_calls back: ${call.name}(${call.arguments})`, started, toolRoles);
    } else if (/<tool_call>/.test(reply.text)) {
      add(
        "tool-calling",
        "failed",
        "the model wrote a <tool_call> block but the server returned it as text, not tool_calls: start vLLM with --enable-auto-tool-choice --tool-call-parser hermes (SGLang: --tool-call-parser qwen25)",
        started,
        toolRoles,
      );
    } else if (reply.finishReason === "length") {
      add("tool-calling", "failed", "the reply ran out of tokens (1024) before any tool call: with thinking on, the reasoning may use the budget; turn thinking off in the node's extraBody", started, toolRoles);
    } else if (!reply.text.trim() && reply.reasoning) {
      add("tool-calling", "failed", `the model only reasoned (${reply.reasoning.length} characters) and neither answered nor called the offered tool: a policy on this node would never act`, started, toolRoles);
    } else {
      add("tool-calling", "failed", `the model answered in text without calling the offered tool (${quote(reply.text.trim())}): a policy on this node would never act`, started, toolRoles);
    }
  } catch (e) {
    const hint =
      e instanceof ChatCallError && e.status === 400 && /tool/i.test(e.message)
        ? " (vLLM: start with --enable-auto-tool-choice --tool-call-parser hermes)"
        : "";
    add("tool-calling", "failed", `tool-calling round trip failed: ${errText(e)}${hint}`, started, toolRoles);
  }
  return { checks, facts };
}
