/**
 * Pre-serialised JSON spliced into a response body. tRPC writes a batch answer with one JSON.stringify
 * over every result in it; a shared result (server/lib/live-reads.ts) — the same object for a hundred
 * viewers — would be turned into text again for each of them (a run page's charts are ~300 KB of
 * numbers per refetch, and formatting doubles is most of what that costs). Inside `withSplicing`, the
 * transformer hands tRPC a short placeholder instead of such a result and records the result's text
 * (made once per object); `withSplicing` then puts the text where the placeholder is.
 *
 * The body is streamed from bytes, never made one string: a body that size would be a new large string
 * per request, and V8 puts those straight into the old generation, where a hundred viewers' copies pile
 * up until a full collection (hundreds of MB, and a pause every client feels). The cached bytes live
 * outside the JS heap and every answer streams the same ones, uncopied.
 *
 * Placeholders carry a random per-process nonce, so nothing a caller sends or stores can pose as one,
 * and they are only made inside `withSplicing`, which always replaces them before the body leaves.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";

const NONCE = crypto.randomBytes(12).toString("hex");
const PREFIX = `__envace_json_${NONCE}_`;
const PLACEHOLDER = new RegExp(`"${PREFIX}(\\d+)__"`, "g");

const splicing = new AsyncLocalStorage<Uint8Array<ArrayBuffer>[]>();

/**
 * Within `withSplicing`: a placeholder that the response body will carry `json()` (UTF-8 JSON text) in
 * place of. Outside: null, and `json` is not called (nothing there would use the text).
 */
export function splicePlaceholder(json: () => Uint8Array<ArrayBuffer>): string | null {
  const texts = splicing.getStore();
  if (!texts) return null;
  texts.push(json());
  return `${PREFIX}${texts.length - 1}__`;
}

/** `respond()` with every placeholder made while it ran replaced by its JSON text in the body. */
export async function withSplicing(respond: () => Promise<Response>): Promise<Response> {
  const texts: Uint8Array<ArrayBuffer>[] = [];
  const res = await splicing.run(texts, respond);
  if (texts.length === 0) return res;
  // The envelope is small (the results in it are placeholders); split it around them.
  const envelope = await res.text();
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const m of envelope.matchAll(PLACEHOLDER)) {
    parts.push(utf8.encode(envelope.slice(at, m.index)), texts[Number(m[1])]!);
    at = m.index + m[0].length;
  }
  parts.push(utf8.encode(envelope.slice(at)));
  // The cached texts go out as they are: a plain (not byte) stream hands its chunks on without copying
  // or detaching them, where a Blob would copy every one per answer.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) if (part.byteLength > 0) controller.enqueue(part);
      controller.close();
    },
  });
  const headers = new Headers(res.headers);
  headers.set("content-length", String(parts.reduce((n, p) => n + p.byteLength, 0)));
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

const utf8 = new TextEncoder();
