/**
 * How well a tiny-gpt checkpoint speaks the engine's current formats: greedy decoding of gold
 * transcripts (prompts exactly as the engine builds them today, completions as the engine expects
 * them), scored per role by exact match and by whether the output parses the way the engine parses it
 * (act: the tool calls or the reply the gold has; rehearse: a valid `<execution_result>`).
 *
 * `npm run node:pretrain` reports it for the weights it writes, and the warm-start guard test
 * (`weights.test.ts`) holds the shipped weights to a floor, so a change of prompt or completion format
 * fails CI until the weights are regenerated.
 */
import type { ChatMessage, ToolSchema } from "../engine/io";
import { parseActOutput, parseRehearseOutput } from "../engine/parsers";
import { decode, renderPrompt, stopTokens } from "../../lib/renderers/tiny-gpt/chat-format";
import { type GPTConfig, type ParamMap, sampleRows } from "./model";

export interface CheckTranscript {
  role: "act" | "rehearse";
  messages: ChatMessage[];
  tools?: ToolSchema[];
  completion: string;
}

export interface RoleScore {
  /** Rows of this role that fit the context and were decoded. */
  n: number;
  /** Share decoded exactly as the gold completion, ending with the stop token. */
  exactMatch: number;
  /** Share that parses as the engine parses it, to the same kind of answer as the gold. */
  parseable: number;
}

export interface WarmStartScore {
  act: RoleScore;
  rehearse: RoleScore;
  /** A few decoded outputs that did not parse, for the failure message. */
  unparsedExamples: string[];
}

/** Whether an act output is the same kind of answer as the gold (tool calls, or a plain reply) and parses. */
function actParses(output: string, gold: string): boolean {
  const want = parseActOutput(gold).kind;
  const got = parseActOutput(output);
  return got.kind !== "error" && got.kind === want;
}

export async function scoreWarmStart(params: ParamMap, cfg: GPTConfig, transcripts: CheckTranscript[], maxTokens = 256): Promise<WarmStartScore> {
  const rows = transcripts
    .map((t) => ({ t, prompt: renderPrompt(t.messages, t.tools) }))
    .filter(({ prompt }) => prompt.length < cfg.contextLength - 8)
    .map(({ t, prompt }) => ({ t, row: { prompt, options: { maxTokens: Math.min(maxTokens, cfg.contextLength - prompt.length), temperature: 0, topP: 1, topK: 0, stopTokens, seed: 0 } } }));
  const out = await sampleRows(
    params,
    cfg,
    rows.map((r) => r.row),
  );
  const tally = { act: { n: 0, exact: 0, parse: 0 }, rehearse: { n: 0, exact: 0, parse: 0 } };
  const unparsedExamples: string[] = [];
  rows.forEach(({ t }, i) => {
    const text = decode(out[i].tokens);
    const s = tally[t.role];
    s.n++;
    if (text === t.completion && out[i].stopReason === "stop") s.exact++;
    const parses = t.role === "act" ? actParses(text, t.completion) : parseRehearseOutput(text).ok;
    if (parses) s.parse++;
    else if (unparsedExamples.length < 3) unparsedExamples.push(`${t.role}: ${JSON.stringify(text.slice(0, 160))}`);
  });
  const score = (s: { n: number; exact: number; parse: number }): RoleScore => ({ n: s.n, exactMatch: s.n ? s.exact / s.n : 0, parseable: s.n ? s.parse / s.n : 0 });
  return { act: score(tally.act), rehearse: score(tally.rehearse), unparsedExamples };
}
