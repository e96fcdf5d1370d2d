/**
 * TEST DOUBLE — a τ² task's gold trajectory played by an agent and a user that read only their own
 * conversation, so any number of concurrent episodes can share them: the agent runs the task's gold
 * actions of the assistant, the user (telecom) runs the user's gold actions on its phone as tool calls,
 * each in gold order, taking turns. Each side tells the other how far it is in its text ("agent steps: 2",
 * "user steps: 1"); the agent's last message carries the task's communicate_info; the user ends with
 * ###STOP### when every gold action is done. NOT a model of agents or users.
 */
import type { ChatMessage } from "../../worker/engine/io";
import { pyJsonDumpsValue } from "../../lib/python/values";
import { pyArgumentsOf, type Tau2Task } from "../../lib/tau2/tasks";

/** The action's arguments as json.dumps writes them (2.0 stays 2.0). */
const argsText = (action: { arguments: Record<string, unknown> }) => pyJsonDumpsValue(pyArgumentsOf(action));

export type GoldReply = { text: string; toolCalls?: { id: string; name: string; arguments: string }[] };

const counted = (messages: { role: string; content: string }[], role: string, tag: string): number => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== role) continue;
    const hit = new RegExp(`${tag} steps: (\\d+)`).exec(m.content);
    if (hit) return Number(hit[1]);
  }
  return 0;
};

/** The first gold action not yet done, given how many of each side's actions are done. */
function nextAction(task: Tau2Task, agentDone: number, userDone: number) {
  let a = 0;
  let u = 0;
  for (const action of task.evaluation_criteria?.actions ?? []) {
    const who = action.requestor ?? "assistant";
    if (who === "user" ? u++ >= userDone : a++ >= agentDone) return action;
  }
  return undefined;
}

/** What the gold agent says next in an agent-side conversation (its own tool results counted). */
export function goldAgentReply(task: Tau2Task, messages: ChatMessage[]): GoldReply {
  const agentDone = messages.filter((m) => m.role === "tool").length;
  const userDone = counted(messages, "user", "user");
  const next = nextAction(task, agentDone, userDone);
  if (next && (next.requestor ?? "assistant") === "assistant") {
    return { text: "", toolCalls: [{ id: `gold_${agentDone}`, name: next.name, arguments: argsText(next) }] };
  }
  return { text: `agent steps: ${agentDone}. ${(task.evaluation_criteria?.communicate_info ?? []).join(" and ")}`.trim() };
}

/**
 * What the gold user says next in its own context (user simulator requests: the agent's texts are `user`
 * messages, its own tool results `tool` messages).
 */
export function goldUserReply(task: Tau2Task, messages: ChatMessage[], tag = ""): GoldReply {
  const userDone = messages.filter((m) => m.role === "tool").length;
  const agentDone = counted(messages, "user", "agent");
  const next = nextAction(task, agentDone, userDone);
  if (next && next.requestor === "user") return { text: "", toolCalls: [{ id: `user_${userDone}`, name: next.name, arguments: argsText(next) }] };
  const mark = tag ? ` ${tag}` : "";
  if (!next) return { text: `user steps: ${userDone}.${mark} Thanks, that is all. ###STOP###` };
  return { text: `user steps: ${userDone}.${mark} Please go on.` };
}

/** A gold reply as the text a Hermes-style model writes (a vLLM-like node parses the <tool_call> blocks back). */
export function asHermesText(reply: GoldReply): string {
  return [reply.text, ...(reply.toolCalls ?? []).map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: JSON.parse(c.arguments) })}\n</tool_call>`)].filter(Boolean).join("\n");
}
