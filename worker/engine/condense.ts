/**
 * Condensed transcripts for test-time rehearsal (testtime.ts): what an assessment or memory prompt
 * receives of a private attempt. The order of work is fixed by what must survive:
 *   1. thinking is stripped (or bounded to `thinkingTokens` per assistant message) first;
 *   2. the actions — every tool call's name and arguments — are kept whole, always;
 *   3. the rest (user messages, visible replies, tool results) is bounded by tokens, counted with the
 *      policy's renderer: text that fits is kept, longer texts share what is left equally and keep their
 *      head and tail around an elision marker.
 * So the bound can only be exceeded by the actions themselves (a transcript of nothing but calls).
 * Pure.
 */
import type { ChatMessage } from "./io";

export interface CondenseOptions {
  /** Token bound of the whole transcript (the actions are never cut, even past it). */
  maxTokens: number;
  /** Thinking kept per assistant message, in tokens; 0 strips it. */
  thinkingTokens: number;
  /** The policy's token count (its renderer); defaults to ⌈chars / 4⌉. */
  countTokens?: (text: string) => number;
}

export interface CondensedTranscript {
  text: string;
  /** Token count of `text` (sum over its pieces, with the same counter). */
  tokens: number;
  /** Tool calls in the transcript (all of them kept). */
  actions: number;
  /** Whether anything besides thinking was shortened. */
  shortened: boolean;
}

export const ELISION = " … ";

const defaultCount = (text: string) => Math.ceil(text.length / 4);

type Piece = { kind: "fixed" | "text"; text: string };

/** Split `<think>…</think>` blocks (an unclosed block runs to the end) from the visible text. */
export function splitThinkBlocks(content: string): { thinking: string; visible: string } {
  if (!content.includes("<think>")) return { thinking: "", visible: content };
  const thoughts: string[] = [];
  let visible = "";
  let from = 0;
  for (;;) {
    const open = content.indexOf("<think>", from);
    if (open < 0) break;
    visible += content.slice(from, open);
    const close = content.indexOf("</think>", open + 7);
    if (close < 0) {
      thoughts.push(content.slice(open + 7));
      from = content.length;
      break;
    }
    thoughts.push(content.slice(open + 7, close));
    from = close + 8;
  }
  visible += content.slice(from);
  return { thinking: thoughts.map((t) => t.trim()).filter(Boolean).join("\n"), visible };
}

/** The longest prefix of `text` with at most `tokens` tokens (binary search on characters). */
export function headWithin(text: string, tokens: number, count: (t: string) => number): string {
  if (tokens <= 0) return "";
  if (count(text) <= tokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(text.slice(0, mid)) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}

/** The longest suffix of `text` with at most `tokens` tokens. */
export function tailWithin(text: string, tokens: number, count: (t: string) => number): string {
  if (tokens <= 0) return "";
  if (count(text) <= tokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(text.slice(text.length - mid)) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(text.length - lo);
}

/** `text` in at most `tokens` tokens: head and tail around the elision marker (whole when it fits). */
export function shortenTo(text: string, tokens: number, count: (t: string) => number): string {
  if (count(text) <= tokens) return text;
  const room = tokens - count(ELISION);
  if (room <= 0) return ELISION.trim();
  const head = Math.ceil((room * 2) / 3);
  return `${headWithin(text, head, count).trimEnd()}${ELISION}${tailWithin(text, room - head, count).trimStart()}`;
}

function piecesOf(messages: ChatMessage[], thinkingTokens: number, count: (t: string) => number): { pieces: Piece[]; actions: number } {
  const pieces: Piece[] = [];
  let actions = 0;
  const line = (label: string, body: string) => {
    if (pieces.length) pieces.push({ kind: "fixed", text: "\n" });
    pieces.push({ kind: "fixed", text: label });
    if (body) pieces.push({ kind: "text", text: body });
  };
  for (const m of messages) {
    const content = (m.content ?? "").trim();
    if (m.role === "system") continue;
    if (m.role === "user") line("User: ", content);
    else if (m.role === "tool") line(m.name ? `Result of ${m.name}: ` : "Result: ", content);
    else if (m.role === "assistant") {
      const { thinking, visible } = splitThinkBlocks(content);
      const kept = thinkingTokens > 0 && thinking ? headWithin(thinking, thinkingTokens, count) : "";
      if (kept) line("Thinking: ", kept === thinking ? kept : `${kept.trimEnd()} …`);
      const reply = visible.trim();
      if (reply || !m.tool_calls?.length) line("Assistant: ", reply);
      for (const c of m.tool_calls ?? []) {
        actions++;
        if (pieces.length) pieces.push({ kind: "fixed", text: "\n" });
        // An action: name and arguments verbatim, never shortened.
        pieces.push({ kind: "fixed", text: `Call: ${c.function.name} ${c.function.arguments}` });
      }
    }
  }
  return { pieces, actions };
}

/**
 * Equal shares of `budget` over texts (water-filling): a text needing less than its share keeps all of it
 * and leaves the rest to the others. Returns each text's allowance.
 */
export function shareBudget(sizes: number[], budget: number): number[] {
  const allowance = sizes.map(() => 0);
  let left = Math.max(0, budget);
  const open = sizes.map((_, i) => i).sort((a, b) => sizes[a]! - sizes[b]!);
  while (open.length) {
    const share = Math.floor(left / open.length);
    const i = open[0]!;
    if (sizes[i]! <= share) {
      allowance[i] = sizes[i]!;
      left -= sizes[i]!;
      open.shift();
      continue;
    }
    for (const j of open) allowance[j] = share;
    break;
  }
  return allowance;
}

/** A private attempt's conversation (after the initial messages) as a bounded transcript; see the file comment. */
export function condenseTranscript(messages: ChatMessage[], options: CondenseOptions): CondensedTranscript {
  const count = options.countTokens ?? defaultCount;
  const { pieces, actions } = piecesOf(messages, options.thinkingTokens, count);
  if (pieces.length === 0) return { text: "(nothing happened)", tokens: count("(nothing happened)"), actions: 0, shortened: false };
  const sizes = pieces.map((p) => count(p.text));
  const total = sizes.reduce((s, n) => s + n, 0);
  if (total <= options.maxTokens) return { text: pieces.map((p) => p.text).join(""), tokens: total, actions, shortened: false };

  const fixed = pieces.reduce((s, p, i) => s + (p.kind === "fixed" ? sizes[i]! : 0), 0);
  const textIdx = pieces.flatMap((p, i) => (p.kind === "text" ? [i] : []));
  const textSizes = textIdx.map((i) => sizes[i]!);
  let budget = options.maxTokens - fixed;
  let out = pieces.map((p) => p.text);
  let tokens = total;
  // Elision markers and token boundaries may cost a little more than the shares: tighten and retry.
  for (let round = 0; round < 8 && tokens > options.maxTokens; round++) {
    if (budget < 0) {
      // Not even the markers fit beside the actions: only the actions and their labels remain.
      out = pieces.map((p) => (p.kind === "text" ? "" : p.text));
    } else {
      const allowance = shareBudget(textSizes, budget);
      out = pieces.map((p) => p.text);
      textIdx.forEach((i, k) => {
        if (allowance[k]! < sizes[i]!) out[i] = shortenTo(pieces[i]!.text, allowance[k]!, count);
      });
    }
    const next = out.reduce((s, t) => s + count(t), 0);
    if (budget < 0) {
      tokens = next;
      break;
    }
    budget -= Math.max(1, next - options.maxTokens);
    tokens = next;
  }
  return { text: out.join(""), tokens, actions, shortened: true };
}
