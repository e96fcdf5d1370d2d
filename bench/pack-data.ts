/**
 * One EnvACE training step built the way the product builds it, at the paper's shape: the engine's
 * rollout machine (worker/engine/machine: act prompts, rehearse prompts with their history, the act
 * context budget that ends an episode with LENGTH_EXCEEDED) drives every rollout, every prompt is
 * rendered by TinkerPolicy.requestPromptTokens (the Qwen3 renderer of lib/renderers with the policy's
 * options and each rollout's render cache; rehearse prompts left-truncated to the budget), and the
 * step's rows are the engine's own (grpo.ts: role-wise advantages, buildTrainingData).
 *
 * Only the model is synthetic: each act reply is ~`replyTokens` tokens — a <think> block, then one
 * <tool_call> — and each rehearse reply the same length — a <think> block, then an <execution_result>.
 * Their sampled ids are the reply text tokenised with the same Qwen3 vocabulary plus <|im_end|> (what a
 * sampler returns for that text). Texts are deterministic (a fixed PRNG), so every run builds the same step.
 *
 * Rollouts advance round-robin, one generation each, as concurrent rollouts do in a real step.
 */
import { policyRenderOptions } from "../lib/renderers";
import type { HfChatRenderer } from "../lib/renderers";
import { buildTrainingData, computeAdvantages, type GenerationRow } from "../worker/engine/grpo";
import type { ChatMessage, GenerateResult, ToolSchema, TrainingDatum } from "../worker/engine/io";
import { applyEvent, nextNeed, type RolloutOptions, type RolloutState, startRollout } from "../worker/engine/machine";
import type { TaskInstance } from "../worker/engine/types";
import type { FocusOn } from "../contracts/tasks";
import type { TinkerPolicy } from "../worker/clients/tinker-policy";
import { mulberry32 } from "../lib/random";

export interface PackScale {
  /** Instances per step (the paper: train_data_size 16). */
  instances: number;
  /** Rollouts per instance (the paper: group_size 4). */
  rollouts: number;
  /** The machine's turn cap (maxAssistantTurns; the paper: 30). */
  maxTurns: number;
  /** Tokens per sampled reply, both roles (thinking included). */
  replyTokens: number;
  /** The act context budget and the rehearse prompts' left-truncation (the paper: 12,000). */
  promptBudgetTokens: number;
}

/**
 * The paper's step (envace-method.md §1.2, §1.6, §5; contracts/run-config/presets.ts `paper`): 16 instances × 4
 * rollouts = 64 trajectories, up to 30 turns, 12,000-token prompts; replies of 2,000 tokens with thinking (the
 * paper allows 8,000 — a typical Qwen3 reply with thinking is shorter).
 */
export const PAPER_SCALE: PackScale = { instances: 16, rollouts: 4, maxTurns: 30, replyTokens: 2000, promptBudgetTokens: 12_000 };

const FOCUS: FocusOn = "assistant.tool_calls";

/** Qwen3's <|im_end|> (tokenizer.json added_tokens): ends every generation. */
const IM_END = 151645;

/** A deterministic PRNG so every run builds the same step. */
const rng = mulberry32;

const WORDS = (
  "order item price stock customer refund address shipping status payment exchange cancel return account email phone warehouse size color quantity total " +
  "check whether the user asked first then look up their record because policy says we must confirm identity before changing anything so I will call"
).split(" ");

function words(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = WORDS[Math.floor(r() * WORDS.length)];
    if (r() < 0.04) w += String(Math.floor(r() * 10_000));
    out.push(r() < 0.06 ? `${w}.` : w);
  }
  return out.join(" ");
}

/** A CM2-like instance: a system prompt with the policy, 12 tool schemas, a task, reference calls for few-shot (~3,000 prompt tokens). */
function instance(i: number, r: () => number): TaskInstance {
  const tools: ToolSchema[] = Array.from({ length: 12 }, (_, t) => ({
    type: "function" as const,
    function: {
      name: `${WORDS[t]}_${WORDS[(t + 5) % 20]}`,
      description: `Look up or change the ${WORDS[t]} of a ${WORDS[(t + 3) % 20]}. ${words(r, 40)}`,
      parameters: {
        type: "object" as const,
        properties: {
          id: { type: "string", description: `The ${WORDS[(t + 3) % 20]} identifier.` },
          [WORDS[t]]: { type: "string", description: words(r, 8) },
          limit: { type: "integer", description: "How many results at most." },
        },
        required: ["id"],
      },
    },
  }));
  const reference: ChatMessage[] = [];
  for (let k = 0; k < 6; k++) {
    const name = tools[k % 12].function.name;
    reference.push(
      { role: "assistant", content: "", tool_calls: [{ id: `ref_${k}`, type: "function", function: { name, arguments: JSON.stringify({ id: `R-${i}-${k}` }) } }] },
      { role: "tool", name, content: JSON.stringify({ ok: true, id: `R-${i}-${k}`, detail: words(r, 60) }) },
    );
  }
  return {
    id: `paper-${i}`,
    dataSource: "bench:pack",
    messages: [
      { role: "system", content: `You are a customer service agent of an online shop. Follow the policy. ${words(r, 1200)}` },
      { role: "user", content: `Customer ${i}: ${words(r, 120)}` },
    ],
    tools,
    followUpUserMessages: [],
    // One judged item (the machine needs a checklist; every act here calls a tool, so no turn is judged).
    checklists: [[[{ id: "c1", question: "Did the agent resolve the request?", focus_on: FOCUS, pass_condition: "resolved", failure_examples: [], evidence: [], weight: 1, required_for_next_turn: false }]]],
    reference,
  };
}

/** ~n tokens of thinking (the synthetic words are about one token each, plus digits and punctuation). */
const thinking = (r: () => number, n: number) => `<think>\n${words(r, Math.round(n * 0.85))}\n</think>\n\n`;

function actReply(r: () => number, tools: ToolSchema[], n: number, tag: string): string {
  const tool = tools[Math.floor(r() * tools.length)].function.name;
  return `${thinking(r, n - 40)}<tool_call>\n${JSON.stringify({ name: tool, arguments: { id: tag, note: words(r, 12) } })}\n</tool_call>`;
}

function rehearseReply(r: () => number, n: number, tag: string): string {
  return `${thinking(r, n - 180)}<execution_result>\n${JSON.stringify({ ok: true, id: tag, detail: words(r, 120) })}\n</execution_result>`;
}

export interface PackStep {
  data: TrainingDatum[];
  /** CPU seconds in TinkerPolicy.requestPromptTokens (rendering and tokenising every prompt). */
  renderCpuS: number;
  /** CPU seconds in the machine (nextNeed / applyEvent: building rehearse prompts, parsing, the act budget's token counts). */
  machineCpuS: number;
  /** The longest single render call (a synchronous block of the event loop), ms of wall time and of CPU. */
  maxRenderMs: number;
  maxRenderCpuMs: number;
  generations: { act: number; rehearse: number };
  promptTokens: number;
  responseTokens: number;
  /** Act turns per rollout: mean and largest. */
  turnsPerRollout: { mean: number; max: number };
  /** Largest prompt sent, and how many rehearse prompts reached the budget (were cut on the left). */
  maxPromptTokens: number;
  truncatedRehearsePrompts: number;
  terminations: Record<string, number>;
  /** Per act prompt: whether it extends the rollout's previous act prompt (prefix reuse applies). */
  actPrefixExtensions: { extended: number; of: number };
}

const cpuS = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * Builds the step. `verify`: also render every prompt from scratch (no cache) and throw on any
 * difference — the test's check that the cached, incremental path gives the full render's ids.
 */
export function buildPackStep(scale: PackScale, policy: TinkerPolicy, opts: { verify?: boolean } = {}): PackStep {
  const renderer = policy.renderer as HfChatRenderer;
  const options: RolloutOptions = {
    paradigm: "rehearse",
    shadowExecution: false,
    maxAssistantTurns: scale.maxTurns,
    maxUserTurns: scale.maxTurns,
    maxMicroSteps: 200,
    promptBudgetTokens: scale.promptBudgetTokens,
    // The worker counts appended text with the policy's renderer (runner/executors/policy-session.ts).
    countTokens: (text) => renderer.countTokens(text),
  };
  const r = rng(1);
  const sampled = (text: string) => [...renderer.encode(text), IM_END];
  let renderCpuS = 0;
  let machineCpuS = 0;
  let maxRenderMs = 0;
  let maxRenderCpuMs = 0;
  const render = (req: Parameters<TinkerPolicy["requestPromptTokens"]>[0]): number[] => {
    const c0 = cpuS();
    const t0 = performance.now();
    const ids = policy.requestPromptTokens(req);
    maxRenderMs = Math.max(maxRenderMs, performance.now() - t0);
    const spent = cpuS() - c0;
    maxRenderCpuMs = Math.max(maxRenderCpuMs, spent * 1000);
    renderCpuS += spent;
    if (opts.verify) {
      const full = renderer.encodeUncached(renderer.renderText(req.messages, policyRenderOptions(req.tools, policy.enableThinking)));
      const expected = req.maxPromptTokens !== undefined && full.length > req.maxPromptTokens ? full.slice(full.length - req.maxPromptTokens) : full;
      if (ids.length !== expected.length || ids.some((id, i) => id !== expected[i])) throw new Error("a cached render differs from the full render");
    }
    return ids;
  };
  const machine = <T>(f: () => T): T => {
    const c0 = cpuS();
    const v = f();
    machineCpuS += cpuS() - c0;
    return v;
  };

  interface Live {
    state: RolloutState;
    group: number;
    k: number;
    instance: TaskInstance;
    acts: number;
    lastAct: number[] | null;
  }
  const live: Live[] = [];
  for (let g = 0; g < scale.instances; g++) {
    const inst = instance(g, r);
    for (let k = 0; k < scale.rollouts; k++) live.push({ state: machine(() => startRollout(inst, options, `r${g}-${k}`)), group: g, k, instance: inst, acts: 0, lastAct: null });
  }
  const rows: GenerationRow[] = [];
  const out = { act: 0, rehearse: 0, promptTokens: 0, responseTokens: 0, maxPrompt: 0, truncated: 0, extended: 0, actsWithPrevious: 0 };
  const result = (promptTokens: number[], text: string): GenerateResult => {
    const tokens = sampled(text);
    out.promptTokens += promptTokens.length;
    out.responseTokens += tokens.length;
    return { text, promptTokens, tokens, logprobs: tokens.map(() => -r() * 2), finishReason: "stop" };
  };
  // Scores per rollout and role (the judge's and the grounding reward stand-ins); equal scores give zero advantages.
  const score = (k: number, role: "act" | "rehearse") => (role === "act" ? [1, 0.5, 0.5, 0][k % 4] : [1, 1, 0, 0.5][k % 4]);

  for (let active = live.length; active > 0; ) {
    active = 0;
    for (const ro of live) {
      const need = machine(() => nextNeed(ro.state));
      if (need.kind === "done") continue;
      active++;
      const tag = `${ro.group}-${ro.k}-${ro.state.microSteps}`;
      if (need.kind === "act") {
        const prompt = render({ messages: need.messages, tools: need.tools });
        if (ro.lastAct) {
          out.actsWithPrevious++;
          if (ro.lastAct.every((id, i) => prompt[i] === id)) out.extended++;
        }
        ro.lastAct = prompt;
        out.maxPrompt = Math.max(out.maxPrompt, prompt.length);
        const output = result(prompt, actReply(r, ro.instance.tools, scale.replyTokens, tag));
        rows.push({ instanceGroupId: `g${ro.group}`, trajectoryId: ro.state.rolloutId, role: "act", score: score(ro.k, "act"), promptTokens: prompt, responseTokens: output.tokens, logprobs: output.logprobs });
        out.act++;
        ro.acts++;
        ro.state = machine(() => applyEvent(ro.state, { kind: "act", output }));
      } else if (need.kind === "rehearse") {
        const prompt = render({ messages: need.messages, maxPromptTokens: scale.promptBudgetTokens });
        if (prompt.length === scale.promptBudgetTokens) out.truncated++;
        out.maxPrompt = Math.max(out.maxPrompt, prompt.length);
        const output = result(prompt, rehearseReply(r, scale.replyTokens, tag));
        rows.push({ instanceGroupId: `g${ro.group}`, trajectoryId: ro.state.rolloutId, role: "rehearse", score: score(ro.k, "rehearse"), promptTokens: prompt, responseTokens: output.tokens, logprobs: output.logprobs });
        out.rehearse++;
        ro.state = machine(() => applyEvent(ro.state, { kind: "rehearse", output }));
      } else throw new Error(`bench:pack: the machine asked for ${need.kind}, which this step never needs`);
    }
  }
  const { advantages } = computeAdvantages(rows, { roleWise: true, normByStd: false });
  const terminations: Record<string, number> = {};
  for (const ro of live) terminations[ro.state.terminationReason ?? "?"] = (terminations[ro.state.terminationReason ?? "?"] ?? 0) + 1;
  const acts = live.map((ro) => ro.acts);
  return {
    data: buildTrainingData(rows, advantages),
    renderCpuS,
    machineCpuS,
    maxRenderMs,
    maxRenderCpuMs,
    generations: { act: out.act, rehearse: out.rehearse },
    promptTokens: out.promptTokens,
    responseTokens: out.responseTokens,
    turnsPerRollout: { mean: acts.reduce((a, b) => a + b, 0) / acts.length, max: Math.max(...acts) },
    maxPromptTokens: out.maxPrompt,
    truncatedRehearsePrompts: out.truncated,
    terminations,
    actPrefixExtensions: { extended: out.extended, of: out.actsWithPrevious },
  };
}
