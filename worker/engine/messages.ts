/**
 * How act outputs and tool responses become conversation messages (envace-method.md §1.2 step 2–4).
 * Shared by the rollout machine, the reference-conversation builders of domains and transcripts.
 */
import type { ChatMessage } from "./io";
import { type ActParseResult, pyDumps, sanitizeText } from "./parsers";

/**
 * The assistant message for a parsed act output. With calls, content is the text before the first
 * block and each call gets the id `call_<rolloutId>_<assistantTurn>_<k>`; otherwise content is the
 * whole raw text (reasoning included).
 */
export function assistantMessageFor(parse: ActParseResult, rolloutId: string, assistantTurn: number): ChatMessage {
  if (parse.kind !== "tool_calls") return { role: "assistant", content: sanitizeText(parse.text) };
  return {
    role: "assistant",
    content: sanitizeText(parse.content),
    tool_calls: parse.calls.map((c, k) => ({
      id: `call_${rolloutId}_${assistantTurn}_${k}`,
      type: "function" as const,
      function: { name: c.name, arguments: c.argumentsJson },
    })),
  };
}

export function toolMessage(name: string, content: string): ChatMessage {
  return { role: "tool", name, content: sanitizeText(content) };
}

/**
 * The tool message appended for an act parse error (its payload has a plain-string `error_tool_call`),
 * serialised as the reference does: `json.dumps(payload, ensure_ascii=True)`.
 */
export function actErrorMessage(payload: unknown): ChatMessage {
  const s = pyDumps(payload, true);
  return { role: "tool", name: "error_tool_call", content: s.ok ? s.json : '{"error_tool_call": "unprintable"}' };
}
