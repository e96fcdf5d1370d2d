/**
 * The user simulator (tau2-bench v0.2.0 `user/user_simulator.py`): an LLM playing the customer from the
 * guidelines and the task's scenario. It sees the conversation with roles flipped — the greeting and the
 * agent's text messages as `user`, its own messages as `assistant` — never the agent's tool calls or
 * results. A user with tools (telecom) acts on its own phone: the model may answer with tool calls, which
 * run on the episode's world as the user's (requestor "user"), their results come back to it as tool
 * messages, and it is asked again, until it writes a message for the agent.
 */
import type { ChatClient, ChatMessage, ToolSchema } from "../../../engine/io";
import type { LiveUserAction } from "../../../engine/types";
import { findStopToken, GREETING, type StopToken } from "../../../../lib/tau2/prompts";
import type { Tau2World, UserExchange } from "./world";

/** Rounds of tool calls one user message may take before the simulator counts as stuck. */
export const MAX_USER_TOOL_ROUNDS = 30;

export interface UserTurnRequest {
  /** Guidelines + scenario. */
  systemPrompt: string;
  /** The user's tools, or null (then none are offered). */
  tools: ToolSchema[] | null;
  /** The agent-side conversation so far. */
  visible: ChatMessage[];
  world?: Tau2World;
  temperature: number;
  signal?: AbortSignal;
}

function exchangeMessages(x: UserExchange): ChatMessage[] {
  return [
    { role: "assistant", content: x.content, tool_calls: x.calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.argumentsJson } })) },
    ...x.results.map((r) => ({ role: "tool" as const, content: r.content, tool_call_id: r.id })),
  ];
}

/** The user's side of the conversation: greeting and agent texts as `user`, its own messages and tool exchanges as `assistant`/`tool`. */
export function userContext(systemPrompt: string, visible: ChatMessage[], exchanges: UserExchange[][]): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "system", content: systemPrompt }, { role: "user", content: GREETING }];
  let userMessages = 0;
  for (const m of visible) {
    if (m.role === "assistant" && !m.tool_calls?.length && m.content.trim()) out.push({ role: "user", content: m.content });
    else if (m.role === "user") {
      for (const x of exchanges[userMessages] ?? []) out.push(...exchangeMessages(x));
      out.push({ role: "assistant", content: m.content });
      userMessages++;
    }
  }
  for (const x of exchanges[userMessages] ?? []) out.push(...exchangeMessages(x));
  return out;
}

let callCounter = 0;

/** The user's next message for the agent, after the tool calls it made on its own device. */
export async function userTurn(userSim: ChatClient, req: UserTurnRequest): Promise<{ text: string; stop?: StopToken; actions: LiveUserAction[] }> {
  const turn = req.visible.filter((m) => m.role === "user").length;
  const exchanges = req.world?.userExchanges ?? [];
  const actions: LiveUserAction[] = [];
  for (let round = 0; round <= MAX_USER_TOOL_ROUNDS; round++) {
    const messages = userContext(req.systemPrompt, req.visible, exchanges);
    const reply = await userSim.complete({ messages, temperature: req.temperature, signal: req.signal, ...(req.tools ? { tools: req.tools } : {}) });
    const calls = req.tools ? (reply.toolCalls ?? []) : [];
    if (calls.length === 0) return { text: reply.text, stop: findStopToken(reply.text), actions };
    if (!req.world) throw new Error("the user simulator called a tool, but the episode has no world for the user's device");
    const exchange: UserExchange = { content: reply.text, calls: [], results: [] };
    for (const c of calls) {
      const id = c.id || `user_call_${++callCounter}`;
      const msg = req.world.userCall(c.name, c.arguments);
      exchange.calls.push({ id, name: c.name, argumentsJson: c.arguments });
      exchange.results.push({ id, content: msg.content, error: msg.error });
      actions.push({ call: { id, name: c.name, argumentsJson: c.arguments }, content: msg.content, error: msg.error });
    }
    (exchanges[turn] ??= []).push(exchange);
  }
  throw new Error(`the user simulator made more than ${MAX_USER_TOOL_ROUNDS} rounds of tool calls without a message for the agent`);
}
