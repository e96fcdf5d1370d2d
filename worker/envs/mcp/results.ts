/**
 * MCP tool results → the one tool message the conversation carries (and the real response fidelity
 * compares with), without loss:
 *
 * - content blocks in text form: a text block is its text; an image or audio block is a one-line JSON
 *   descriptor `{"type": "image", "mimeType": …, "bytes": N, "sha256": …}` (its bytes never enter a
 *   text context); a resource link keeps uri/name/title/mimeType/description; an embedded resource its
 *   uri, mimeType and text (a binary one: size and digest). One block → that text; several → a JSON
 *   list of them; none → "".
 * - `structuredContent` (the machine-readable result): the message is its JSON, unless the text blocks
 *   say more than it does (they usually repeat it: its JSON, or its one member's value), in which case
 *   the message is `{"content": <text form>, "structuredContent": …}`.
 * - `isError: true`: `{"error": <text form>}` (plus `structuredContent` when given), and the error flag
 *   travels beside the content (ToolOutcome.isError) to the fidelity score.
 *
 * JSON is written as the reference writes tool results (Python `json.dumps`, ensure_ascii=False), whole
 * numbers as ints.
 */
import { createHash } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PyInt, pyJsonDumps } from "../../../lib/python/json";
import { deepEqual } from "../../engine/fidelity";
import type { ToolOutcome } from "../../engine/types";

type Block = CallToolResult["content"][number];

/**
 * JSON as the reference writes it. The SDK parsed the message with JSON.parse, so `7` and `7.0` are one
 * number by now: whole numbers are written as ints (what a JSON server sends almost always means).
 */
export const toolJson = (value: unknown) => pyJsonDumps(withInts(value), { ensureAscii: false });

function withInts(value: unknown): unknown {
  if (typeof value === "number") return Number.isSafeInteger(value) ? new PyInt(value) : value;
  if (Array.isArray(value)) return value.map(withInts);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withInts(v)]));
  return value;
}

function binary(base64: string): { bytes: number; sha256: string } {
  const buf = Buffer.from(base64, "base64");
  return { bytes: buf.length, sha256: createHash("sha256").update(buf).digest("hex").slice(0, 16) };
}

/** A block as a JSON value: text stays a string; other kinds become descriptor objects. */
function blockValue(block: Block): unknown {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return { type: block.type, mimeType: block.mimeType, ...binary(block.data) };
    case "resource_link":
      return {
        type: "resource_link",
        uri: block.uri,
        name: block.name,
        ...(block.title !== undefined ? { title: block.title } : {}),
        ...(block.mimeType !== undefined ? { mimeType: block.mimeType } : {}),
        ...(block.description !== undefined ? { description: block.description } : {}),
      };
    case "resource": {
      const r = block.resource;
      const base = { type: "resource", uri: r.uri, ...(r.mimeType !== undefined ? { mimeType: r.mimeType } : {}) };
      return "text" in r && typeof r.text === "string" ? { ...base, text: r.text } : { ...base, ...binary(String((r as { blob?: unknown }).blob ?? "")) };
    }
    default:
      return { type: (block as { type: string }).type };
  }
}

/** The content blocks as one JSON value: a single block's value, or the list of them. */
function contentValue(blocks: Block[]): unknown {
  if (blocks.length === 1) return blockValue(blocks[0]!);
  return blocks.map(blockValue);
}

function contentText(blocks: Block[]): string {
  if (blocks.length === 0) return "";
  const v = contentValue(blocks);
  return typeof v === "string" ? v : toolJson(v);
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The text blocks only repeat the structured content (its JSON, or its single member's value). */
function repeatsStructured(blocks: Block[], structured: Record<string, unknown>): boolean {
  if (blocks.length === 0) return true;
  if (blocks.length !== 1 || blocks[0]!.type !== "text") return false;
  const text = blocks[0]!.text;
  const parsed = tryParse(text);
  if (parsed.ok && deepEqual(parsed.value, structured)) return true;
  const keys = Object.keys(structured);
  if (keys.length !== 1) return false;
  const only = structured[keys[0]!];
  return only === text || (parsed.ok && deepEqual(parsed.value, only));
}

export function toolOutcomeOf(result: CallToolResult): ToolOutcome {
  const blocks = result.content ?? [];
  const structured = result.structuredContent;
  if (result.isError) {
    const text = contentText(blocks) || "the tool reported an error without a message";
    return { content: toolJson(structured ? { error: text, structuredContent: structured } : { error: text }), isError: true };
  }
  if (structured) {
    return { content: repeatsStructured(blocks, structured) ? toolJson(structured) : toolJson({ content: contentValue(blocks), structuredContent: structured }), isError: false };
  }
  return { content: contentText(blocks), isError: false };
}
