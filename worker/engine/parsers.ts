/**
 * Output parsers for the two policy roles (envace-method.md §1.4, §1.5, §1.7).
 *
 * Serialisation follows the reference byte for byte (Python `json.loads` then `json.dumps` with its
 * default `", "` / `": "` separators): tool-call arguments and rehearsed results with
 * `ensure_ascii=False`, error payloads with `ensure_ascii=True`; `7.0` stays `7.0`, big ints keep their
 * digits and object key order is kept (lib/python/json.ts).
 *
 * - `parseActOutput`: the act role's free text → user-visible reply or tool calls, with the
 *   reference's error codes. One bad block invalidates the whole message.
 * - `parseRehearseOutput`: the rehearse role's text → the tool-response JSON inside
 *   `<execution_result>` tags, or a nested `{"error_tool_call":{code,message,details}}` error.
 * - `sanitizeText`: the reference's tokenizer-safety pass.
 *
 * Both parsers are total: any input string yields a result, never an exception.
 */

import { JsonSyntaxError, PyInt, pyJsonDumps, pyJsonLoads, toPlainJson, type OrderedJson } from "../../lib/python/json";
import { pyPrefix, pyStr } from "../../lib/python/repr";

// ---------------------------------------------------------------------------------------------
// Text sanitisation (§1.5 last line)
// ---------------------------------------------------------------------------------------------

/**
 * Lone surrogates, NUL, U+FDD0–U+FDEF and every plane's U+xFFFE/U+xFFFF. With the `u` flag a
 * surrogate range only matches unpaired halves; valid astral characters are left alone.
 */
const UNSAFE_CHARS =
  /[\u0000\u{D800}-\u{DFFF}\u{FDD0}-\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/gu;

/** Replace characters a tokenizer may choke on with U+FFFD. */
export function sanitizeText(text: string): string {
  UNSAFE_CHARS.lastIndex = 0;
  if (!UNSAFE_CHARS.test(text)) return text;
  UNSAFE_CHARS.lastIndex = 0;
  return text.replace(UNSAFE_CHARS, "\uFFFD");
}

/**
 * Sanitise serialised JSON: JSON.stringify escapes lone surrogates as `\udXXX`, which would
 * decode back into lone surrogates, so those escapes (not preceded by an escaping backslash)
 * become U+FFFD as well, then the raw text is sanitised.
 */
export function sanitizeJson(json: string): string {
  const unescaped = json.includes("\\u") ? json.replace(/(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g, "$1\uFFFD") : json;
  return sanitizeText(unescaped);
}

/** JSON.stringify that reports failure (deep nesting overflows the stack) instead of throwing. */
export function safeStringify(value: unknown): { ok: true; json: string } | { ok: false; error: string } {
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return { ok: false, error: "value has no JSON representation" };
    return { ok: true, json };
  } catch (e) {
    return { ok: false, error: errorText(e) };
  }
}

// ---------------------------------------------------------------------------------------------
// Python json.loads / json.dumps, total
// ---------------------------------------------------------------------------------------------

export type PyLoadResult = { ok: true; value: OrderedJson } | { ok: false; kind: "syntax" | "depth"; error: string };

/** Python `json.loads`, total: a syntax error or a value nested too deeply for the stack is reported. */
export function pyLoads(text: string): PyLoadResult {
  try {
    return { ok: true, value: pyJsonLoads(text) };
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { ok: false, kind: "syntax", error: e.message };
    return { ok: false, kind: "depth", error: `maximum recursion depth exceeded (${errorText(e)})` };
  }
}

/** Python `json.dumps(value, ensure_ascii=…)`, total (deep nesting is reported like Python's RecursionError). */
export function pyDumps(value: unknown, ensureAscii: boolean): { ok: true; json: string } | { ok: false; error: string } {
  try {
    return { ok: true, json: pyJsonDumps(value, { ensureAscii }) };
  } catch (e) {
    return { ok: false, error: `maximum recursion depth exceeded while encoding a JSON object (${errorText(e)})` };
  }
}

/** The plain-JS view of a parsed value, total. */
function plainView(value: OrderedJson): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: toPlainJson(value) };
  } catch (e) {
    return { ok: false, error: `maximum recursion depth exceeded (${errorText(e)})` };
  }
}

/** A tool / simulator error payload as the reference writes it (`format_tool_error`: ensure_ascii=True). */
export function toolErrorContent(code: string, message: string, details?: Record<string, unknown>): string {
  const dumped = pyDumps(toolError(code, message, details), true);
  return dumped.ok ? dumped.json : pyJsonDumps(toolError(code, message));
}

/** JSON.parse that reports failure instead of throwing. */
export function safeParseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: errorText(e) };
  }
}

function errorText(e: unknown): string {
  try {
    return e instanceof Error ? e.message : String(e);
  } catch {
    return "unknown error";
  }
}

// ---------------------------------------------------------------------------------------------
// Act output (§1.4)
// ---------------------------------------------------------------------------------------------

export const TOOL_CALL_OPEN = "<tool_call>";
/** The exact block delimiters: newline, tag, newline … newline, closing tag. */
export const TOOL_CALL_BLOCK_START = "\n<tool_call>\n";
export const TOOL_CALL_BLOCK_END = "\n</tool_call>";
/** A block at the very start of the text (Qwen3 with thinking off). */
export const TOOL_CALL_AT_START = "<tool_call>\n";

export const actErrorCodes = [
  "NO_TOOL_CALL_FOUND",
  "JSON_DECODE_ERROR",
  "NO_ARGUMENTS",
  "NON_SERIALIZABLE_ARGUMENTS",
  "INVALID_TOOL_NAME",
] as const;
export type ActErrorCode = (typeof actErrorCodes)[number];

/**
 * The tool message payload for an act parse error. Unlike tool/simulator errors, the
 * `error_tool_call` value is a plain string here (reference quirk, §1.4).
 */
export interface ActErrorPayload {
  error_tool_call: string;
  detail?: string;
  raw_name?: string;
  arguments?: string;
}

export interface ParsedToolCall {
  name: string;
  /** The parsed arguments value (normally an object). */
  arguments: unknown;
  /**
   * Arguments re-serialised as the reference does (`json.dumps(arguments, ensure_ascii=False)`, then the
   * tokenizer-safety pass), as stored in `tool_calls[].function.arguments`.
   */
  argumentsJson: string;
}

export type ActParseResult =
  | { kind: "reply"; text: string }
  | { kind: "tool_calls"; text: string; content: string; calls: ParsedToolCall[] }
  | { kind: "error"; text: string; code: ActErrorCode; payload: ActErrorPayload };

/** Find every newline-delimited tool-call block body (non-greedy, like the reference regex). */
function findBlocks(text: string, start: string, end: string, limit = Infinity): string[] {
  const bodies: string[] = [];
  let from = 0;
  while (bodies.length < limit) {
    const open = text.indexOf(start, from);
    if (open < 0) break;
    const bodyStart = open + start.length;
    const close = text.indexOf(end, bodyStart);
    if (close < 0) break;
    bodies.push(text.slice(bodyStart, close));
    from = close + end.length;
  }
  return bodies;
}

/** A failed act parse (module level: a closure per parse costs a defineProperty of its name under tsx). */
function actFail(text: string, code: ActErrorCode, payload: ActErrorPayload): ActParseResult {
  return { kind: "error", text, code, payload };
}

/**
 * Parse the act role's output.
 * - no `<tool_call>` substring → plain reply (ends the user turn);
 * - otherwise every `\n<tool_call>\n…\n</tool_call>` block (or `<tool_call>\n…` at the very start)
 *   must hold a JSON object or a list of
 *   objects with a non-empty string `name` and `parameters`/`arguments` (use `{}` for none).
 */
export function parseActOutput(rawText: string): ActParseResult {
  const text = typeof rawText === "string" ? rawText : "";
  if (!text.includes(TOOL_CALL_OPEN)) return { kind: "reply", text };

  // A block may also open the text itself: with thinking off, Qwen3's prompt ends in an empty think
  // block and the model writes "<tool_call>\n…" directly (its template renders a first call with empty
  // content the same way). Every other block still needs the reference's leading newline.
  const framed = text.startsWith(TOOL_CALL_AT_START) ? `\n${text}` : text;
  const blocks = findBlocks(framed, TOOL_CALL_BLOCK_START, TOOL_CALL_BLOCK_END);
  if (blocks.length === 0) {
    return actFail(text, "NO_TOOL_CALL_FOUND", {
      error_tool_call:
        'No well-formed tool call block was found. Write each call as "\\n<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>".',
    });
  }

  const calls: ParsedToolCall[] = [];
  for (const block of blocks) {
    const body = block.trim();
    const parsed = pyLoads(body);
    if (!parsed.ok && parsed.kind === "syntax") {
      return actFail(text, "JSON_DECODE_ERROR", { error_tool_call: `A tool call block is not valid JSON: ${body}` });
    }
    if (!parsed.ok) {
      // Python would raise RecursionError here; a value this deep cannot be serialised either.
      return actFail(text, "NON_SERIALIZABLE_ARGUMENTS", {
        error_tool_call: "NON_SERIALIZABLE_ARGUMENTS: a tool call's arguments cannot be serialised",
        detail: parsed.error,
      });
    }
    const actions = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    for (const action of actions) {
      const record = action instanceof Map ? action : undefined;
      const name = record?.get("name");
      let args = record?.get("parameters");
      if (args === undefined || args === null) args = record?.get("arguments");
      if (args === undefined || args === null) {
        return actFail(text, "NO_ARGUMENTS", {
          error_tool_call: "A tool call has no arguments. Pass an empty object when the tool takes none.",
        });
      }
      // Reference: json.dumps(arguments, ensure_ascii=False), then the tokenizer-safety pass.
      const serialised = pyDumps(args, false);
      if (!serialised.ok) {
        return actFail(text, "NON_SERIALIZABLE_ARGUMENTS", {
          error_tool_call: "NON_SERIALIZABLE_ARGUMENTS: a tool call's arguments cannot be serialised",
          detail: serialised.error,
        });
      }
      if (typeof name !== "string" || name.trim() === "") {
        return actFail(text, "INVALID_TOOL_NAME", {
          error_tool_call: "INVALID_TOOL_NAME: a tool call has a missing or empty name",
          // Python str(): None, 'text', {'k': 1} …
          raw_name: pyStr(name ?? null),
          arguments: pyStr(args),
        });
      }
      const plain = plainView(args);
      if (!plain.ok) {
        return actFail(text, "NON_SERIALIZABLE_ARGUMENTS", {
          error_tool_call: "NON_SERIALIZABLE_ARGUMENTS: a tool call's arguments cannot be serialised",
          detail: plain.error,
        });
      }
      calls.push({ name: name.trim(), arguments: plain.value, argumentsJson: sanitizeText(serialised.json) });
    }
  }

  // The assistant message content is the text before the first block delimiter ("" for a leading block).
  const firstBlock = framed.indexOf(TOOL_CALL_BLOCK_START);
  return { kind: "tool_calls", text, content: framed === text ? text.slice(0, firstBlock) : "", calls };
}

// ---------------------------------------------------------------------------------------------
// Rehearse output (§1.7)
// ---------------------------------------------------------------------------------------------

export const EXECUTION_RESULT_OPEN = "<execution_result>";
export const EXECUTION_RESULT_BLOCK_START = "\n<execution_result>\n";
export const EXECUTION_RESULT_BLOCK_END = "\n</execution_result>";

export const rehearseErrorCodes = [
  "EMPTY_SIMULATOR_OUTPUT",
  "NO_EXECUTION_RESULT_TAG_FOUND",
  "EXECUTION_RESULT_TAG_MALFORMED",
  "SIMULATOR_JSON_DECODE_ERROR",
  "INVALID_EXECUTION_RESULT_TYPE",
  "NON_SERIALIZABLE_EXECUTION_RESULT",
] as const;
export type RehearseErrorCode = (typeof rehearseErrorCodes)[number];

/** The shared nested error shape of tools and simulators (§1.5). */
export interface ToolErrorPayload {
  error_tool_call: { code: string; message: string; details?: Record<string, unknown> };
}

export function toolError(code: string, message: string, details?: Record<string, unknown>): ToolErrorPayload {
  return { error_tool_call: details ? { code, message, details } : { code, message } };
}

export type RehearseParseResult =
  | { ok: true; value: unknown; /** json.dumps(value, ensure_ascii=False): the tool message content */ content: string }
  | { ok: false; code: RehearseErrorCode; payload: ToolErrorPayload; /** json.dumps(payload, ensure_ascii=True) */ content: string };

/** Python's `type(value).__name__` for a parsed JSON value. */
function pyTypeName(value: OrderedJson): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "str";
  if (value instanceof PyInt) return "int";
  if (typeof value === "number") return "float";
  return Array.isArray(value) ? "list" : "dict";
}

const EXPECTED_FORMAT = "\\n<execution_result>\\n<non-empty JSON object or array>\\n</execution_result>";

/** Remove every `<think>…</think>` block (non-greedy). */
export function stripThink(text: string): string {
  if (!text.includes("<think>")) return text;
  let out = "";
  let from = 0;
  for (;;) {
    const open = text.indexOf("<think>", from);
    if (open < 0) break;
    const close = text.indexOf("</think>", open + 7);
    if (close < 0) break;
    out += text.slice(from, open);
    from = close + 8;
  }
  return out + text.slice(from);
}

/**
 * The visible text of a reply that must not carry half a thought (test-time feedback and memory): closed
 * `<think>…</think>` blocks removed as `stripThink` does, and an unclosed `<think>` dropped with everything
 * after it (a reply cut off while thinking). `unclosed` says whether that happened. The act and rehearse
 * parsers keep `stripThink`'s reference behaviour.
 */
export function visibleText(text: string): { text: string; unclosed: boolean } {
  const stripped = stripThink(text);
  const open = stripped.indexOf("<think>");
  return open < 0 ? { text: stripped, unclosed: false } : { text: stripped.slice(0, open), unclosed: true };
}

/** A failed rehearse parse: the tool error as payload and as the conversation's content. */
function rehearseFail(code: RehearseErrorCode, message: string, details: Record<string, unknown>): RehearseParseResult {
  return {
    ok: false,
    code,
    payload: toolError(code, message, details),
    // ASCII text: the tokenizer-safety pass the conversation applies would leave it unchanged.
    content: toolErrorContent(code, message, details),
  };
}

/** Parse the rehearse role's output into the tool response; first failing check wins. */
export function parseRehearseOutput(rawText: string): RehearseParseResult {
  let text = typeof rawText === "string" ? stripThink(rawText) : "";
  if (text.trim() === "") text = "";
  if (!text) {
    return rehearseFail("EMPTY_SIMULATOR_OUTPUT", "The simulator produced no output outside its reasoning", {
      expected: "<execution_result>...</execution_result> block",
    });
  }
  // Python text[:200]: the first 200 code points, unsanitised (ensure_ascii escapes whatever is odd).
  const preview = pyPrefix(text, 200);
  if (!text.includes(EXECUTION_RESULT_OPEN)) {
    return rehearseFail("NO_EXECUTION_RESULT_TAG_FOUND", "The output has no '<execution_result>' tag", {
      expected_format: EXPECTED_FORMAT,
      raw_preview: preview,
    });
  }
  const blocks = findBlocks(text, EXECUTION_RESULT_BLOCK_START, EXECUTION_RESULT_BLOCK_END, 1);
  if (blocks.length === 0) {
    return rehearseFail("EXECUTION_RESULT_TAG_MALFORMED", "'<execution_result>' is present but its newline boundaries or closing tag are missing", {
      expected_format: EXPECTED_FORMAT,
      raw_preview: preview,
    });
  }
  const body = blocks[0].trim();
  const parsed = pyLoads(body);
  if (!parsed.ok && parsed.kind === "syntax") {
    return rehearseFail("SIMULATOR_JSON_DECODE_ERROR", "The content of <execution_result> is not valid JSON", {
      raw_preview: pyPrefix(body, 200),
      error: parsed.error,
    });
  }
  if (!parsed.ok) {
    return rehearseFail("NON_SERIALIZABLE_EXECUTION_RESULT", "The execution result cannot be serialised to JSON", { error: parsed.error });
  }
  const value = parsed.value;
  if (!Array.isArray(value)) {
    if (!(value instanceof Map)) {
      return rehearseFail("INVALID_EXECUTION_RESULT_TYPE", "The execution result must be a non-empty object or an array", {
        got_type: pyTypeName(value),
      });
    }
    if (value.size === 0) {
      return rehearseFail("INVALID_EXECUTION_RESULT_TYPE", "The execution result must be a non-empty object or an array", {
        got_type: "object",
        got_value: "{}",
      });
    }
  }
  const serialised = pyDumps(value, false);
  if (!serialised.ok) {
    return rehearseFail("NON_SERIALIZABLE_EXECUTION_RESULT", "The execution result cannot be serialised to JSON", {
      error: serialised.error,
    });
  }
  const plain = plainView(value);
  if (!plain.ok) return rehearseFail("NON_SERIALIZABLE_EXECUTION_RESULT", "The execution result cannot be serialised to JSON", { error: plain.error });
  return { ok: true, value: plain.value, content: sanitizeText(serialised.json) };
}

/** True when a tool message content is a JSON object holding the `error_tool_call` key. */
export function isToolErrorContent(content: string): boolean {
  if (!content.includes("error_tool_call")) return false;
  // Python json.loads (NaN and friends included), then `"error_tool_call" in parsed` on a dict.
  const parsed = pyLoads(content);
  return parsed.ok && parsed.value instanceof Map && parsed.value.has("error_tool_call");
}

// ---------------------------------------------------------------------------------------------
// Helpers for judges and prompts
// ---------------------------------------------------------------------------------------------

/** Split an assistant text into the first think block and the user-visible rest (§3.2 quirk kept). */
export function splitThinking(text: string): { thinking: string; reply: string } {
  const open = text.indexOf("<think>");
  const close = open >= 0 ? text.indexOf("</think>", open + 7) : -1;
  if (open < 0 || close < 0) return { thinking: text, reply: "" };
  return { thinking: text.slice(open + 7, close).trim(), reply: text.slice(close + 8).trim() };
}
