/**
 * How a model's reply becomes the decoded calls the checker reads (`[{name: {param: value}}]`), as upstream's
 * model handlers do it. A decoder either returns the decoded value (whatever shape it has: the evaluation
 * then checks the format, as upstream) or fails with the message upstream's exception would carry.
 *
 * - `decodeToolCallBlocks`: upstream's Qwen FC handler (`qwen_fc.py`): the reply text after `</think>`, every
 *   `<tool_call>\n{json}\n</tool_call>` block whose JSON parses (others are skipped), `{name: arguments}`.
 *   This is the format the product's policies write (see worker/clients/chat-policy.ts).
 * - `decodeFunctionCalls`: upstream's OpenAI-style FC handlers: the API's tool calls, arguments parsed with
 *   `json.loads`; a reply without tool calls is its text, which does not decode (an empty text gives `[]`).
 */
import { BfclDecodeError, decodePromptingAst } from "../decode";
import { pyJsonLoads, PyDict, pyRepr, pyTypeName, type PyValue } from "./values";

export type Decoded = { ok: true; value: PyValue } | { ok: false; error: string };

/** Upstream's `_parse_query_response_prompting`: what follows the last `</think>`, leading newlines dropped. */
export function stripReasoning(text: string): string {
  if (!text.includes("</think>")) return text;
  const parts = text.split("</think>");
  return parts[parts.length - 1].replace(/^\n+/, "");
}

const TOOL_CALL_BLOCK = /<tool_call>\n([\s\S]*?)\n<\/tool_call>/g;

/** Upstream's `_extract_tool_calls`: the JSON of every block that parses, in order. */
export function extractToolCalls(text: string): PyValue[] {
  const out: PyValue[] = [];
  for (const m of text.matchAll(TOOL_CALL_BLOCK)) {
    try {
      out.push(pyJsonLoads(m[1]));
    } catch {
      // upstream skips blocks that are not JSON
    }
  }
  return out;
}

/** Upstream Qwen FC `decode_ast` on a reply (reasoning is removed first, as upstream stores replies). */
export function decodeToolCallBlocks(replyText: string): Decoded {
  const result = stripReasoning(replyText);
  const calls = extractToolCalls(result);
  if (calls.some((c) => !(c instanceof PyDict))) return { ok: false, error: `Model did not return a list of function calls: ${result}` };
  const decoded: PyValue[] = [];
  for (const call of calls as PyDict[]) {
    if (!call.has("name")) return { ok: false, error: "'name'" };
    if (!call.has("arguments")) return { ok: false, error: "'arguments'" };
    const args = call.get("arguments")!;
    if (!(args instanceof PyDict)) return { ok: false, error: `'${pyTypeName(args)}' object has no attribute 'items'` };
    const name = call.get("name")!;
    if (Array.isArray(name) || name instanceof PyDict) return { ok: false, error: `unhashable type: '${pyTypeName(name)}'` };
    decoded.push(PyDict.of([[name, PyDict.of(args.entries())]]));
  }
  return { ok: true, value: decoded };
}

/** One tool call as an OpenAI-compatible API returns it. */
export interface ApiToolCall {
  name: string;
  /** The arguments as the JSON text the API returned. */
  arguments: string;
}

/** Upstream OpenAI-style FC `decode_ast`: `[{name: json.loads(arguments)}]`, or the reply text when there were no calls. */
export function decodeFunctionCalls(result: readonly ApiToolCall[] | string): Decoded {
  if (typeof result === "string") {
    // Upstream iterates the text's characters and fails on the first one; an empty text decodes to [].
    return result === "" ? { ok: true, value: [] } : { ok: false, error: "'str' object has no attribute 'keys'" };
  }
  const decoded: PyValue[] = [];
  for (const call of result) {
    try {
      decoded.push(PyDict.of([[call.name, pyJsonLoads(call.arguments)]]));
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }
  return { ok: true, value: decoded };
}

/**
 * Upstream's prompting-style `decode_ast` for Python replies written as code (`[f(a=1), g(b='x')]`), after the
 * reasoning: the multi-turn port's call parser (lib/python/syntax.ts through `decodePromptingAst`).
 */
export function decodePythonCallText(replyText: string): Decoded {
  try {
    return { ok: true, value: decodePromptingAst(stripReasoning(replyText)) };
  } catch (err) {
    if (err instanceof BfclDecodeError) return { ok: false, error: err.message };
    throw err;
  }
}

/** Text of a decoded value for logs and error details (`str()` as upstream wraps it). */
export const decodedText = (v: PyValue): string => pyRepr(v);
