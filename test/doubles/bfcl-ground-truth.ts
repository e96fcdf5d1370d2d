/**
 * TEST DOUBLE — a BFCL policy that emits the ground truth, in the act format every policy of the product
 * writes (`<tool_call>` blocks with JSON arguments; a reply without calls ends a turn). It is not a model:
 * it knows the answers.
 * - multi-turn: each user turn's ground-truth calls in one step (positional arguments named from the
 *   function documents), then a short text reply; a turn without ground truth gets the text reply at once;
 * - single-turn AST: upstream's possible answer as a model following it would write it (oracle.ts);
 *   irrelevance: no call; relevance: a call;
 * - memory: the first acceptable answer as the reply to a question; prerequisite conversations: "Noted.".
 *
 * `bfclGroundTruthPolicy(answer)` answers one known task (unit runs over every task); `BfclGroundTruthIndex`
 * recognises the task from the conversation (the user messages so far and the tools offered), for policies
 * behind an OpenAI-compatible node (`scriptedModel()` for test/doubles/vllm-openai.ts). Its index must be
 * built from a set of tasks that the conversation tells apart; an ambiguous or unknown one throws.
 */
import type { ChatMessage, GenerateRequest, PolicyClient } from "../../worker/engine/io";
import { literalValue, parseExpression } from "../../lib/python/syntax";
import { PyDict, pyJsonDumpsValue, type PyValue } from "../../lib/python/values";
import type { BfclTask, FunctionDoc } from "../../worker/envs/bfcl/data";
import { functionDocsFor } from "../../worker/envs/bfcl/tools";
import type { SingleTurnEntry } from "../../worker/envs/bfcl/single-turn/data";
import { oracleOutput } from "../../worker/envs/bfcl/single-turn/oracle";
import { PyDict as StPyDict, pyJsonDumps as stJsonDumps } from "../../worker/envs/bfcl/single-turn/values";
import type { MemoryQuestion } from "../../worker/envs/bfcl/memory/data";
import { isAstCategory } from "../../worker/envs/bfcl/single-turn/data";
import { singleTurnTools } from "../../worker/envs/bfcl/run/single-turn";
import { bfclToolsByTurn, userMessageOf } from "../../worker/envs/bfcl/run/multi-turn";
import { memoryTools } from "../../worker/envs/bfcl/run/memory";
import { fakeGeneration } from "./shop-oracle";

export type GroundTruthAnswer =
  | { kind: "multi_turn"; id: string; turns: string[][]; docs: FunctionDoc[] }
  | { kind: "reply"; id: string; text: string }
  | { kind: "memory"; id: string; answer: string };

const block = (name: string, argsJson: string) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${argsJson}}\n</tool_call>`;

/** A ground-truth call string (`cd(folder='document')`, positional arguments too) as a tool-call block. */
export function callBlock(call: string, docs: readonly FunctionDoc[]): string {
  const expr = parseExpression(call);
  if (expr.kind !== "call" || expr.func.kind !== "name") throw new Error(`ground truth ${call} is not a plain function call`);
  const name = expr.func.id;
  const doc = docs.find((d) => d.name === name);
  if (!doc) throw new Error(`ground truth ${call}: no function document for ${name}`);
  const params = Object.keys(doc.parameters.properties);
  const args = new PyDict();
  expr.args.forEach((a, i) => {
    if (i >= params.length) throw new Error(`ground truth ${call}: more positional arguments than ${name} documents`);
    args.set(params[i], literalValue(a));
  });
  for (const k of expr.keywords) args.set(k.name, literalValue(k.value) as PyValue);
  return block(name, pyJsonDumpsValue(args));
}

export function multiTurnAnswer(task: BfclTask, dataDir?: string): GroundTruthAnswer {
  return { kind: "multi_turn", id: task.id, turns: task.groundTruth, docs: functionDocsFor(task.involvedClasses, dataDir) };
}

export function singleTurnAnswer(entry: SingleTurnEntry): GroundTruthAnswer {
  if (isAstCategory(entry.category)) {
    const calls = oracleOutput(entry.functions, entry.possibleAnswer!, entry.language);
    const text = calls
      .map((c) => {
        const [name, args] = c.entries()[0] as [string, StPyDict];
        return block(name.replace(/\./g, "_"), stJsonDumps(args));
      })
      .join("\n");
    return { kind: "reply", id: entry.id, text };
  }
  if (entry.category.includes("irrelevance")) return { kind: "reply", id: entry.id, text: "None of the functions fits this request." };
  return { kind: "reply", id: entry.id, text: block(entry.functions[0].name.replace(/\./g, "_"), "{}") };
}

export function memoryAnswer(q: MemoryQuestion): GroundTruthAnswer {
  return { kind: "memory", id: q.id, answer: q.answers[0] };
}

/** The act text the ground-truth policy writes at this point of the conversation. */
export function groundTruthText(answer: GroundTruthAnswer, messages: readonly ChatMessage[]): string {
  const last = messages[messages.length - 1];
  if (answer.kind === "reply") return answer.text;
  // The answer alone: upstream's whole-word match needs a word character before answers such as "$19.99".
  if (answer.kind === "memory") return answer.answer;
  if (last?.role !== "user") return "Done.";
  const turn = messages.filter((m) => m.role === "user").length - 1;
  const calls = answer.turns[turn];
  if (!calls) throw new Error(`${answer.id}: no ground truth for turn ${turn}`);
  return calls.length ? calls.map((c) => callBlock(c, answer.docs)).join("\n") : "Nothing to do for this request.";
}

/** A policy that answers one known task with its ground truth (rehearse requests get a plausible result). */
export function bfclGroundTruthPolicy(answer: GroundTruthAnswer): PolicyClient & { requests: GenerateRequest[] } {
  const requests: GenerateRequest[] = [];
  return {
    requests,
    async generate(req) {
      requests.push(req);
      const text = req.role === "rehearse" ? '\n<execution_result>\n{"result": "ok"}\n</execution_result>' : groundTruthText(answer, req.messages);
      return fakeGeneration(JSON.stringify(req.messages).slice(0, 2000), text);
    },
  };
}

/** A lookup key: the user messages so far and the tool names offered. */
const key = (users: readonly string[], tools: readonly string[]) => JSON.stringify([users, [...tools].sort()]);

/** Recognises the task of a conversation among a set of tasks. */
export class BfclGroundTruthIndex {
  private readonly byKey = new Map<string, GroundTruthAnswer[]>();
  /** Requests that were answered, by task id. */
  readonly answered = new Map<string, number>();

  /** `sabotage`: task ids answered wrongly on purpose (multi-turn: the first turn's last call is left out). */
  constructor(entries: { multiTurn?: BfclTask[]; singleTurn?: SingleTurnEntry[]; memory?: MemoryQuestion[] }, dataDir?: string, sabotage: ReadonlySet<string> = new Set()) {
    for (const task of entries.multiTurn ?? []) {
      const users = task.question.map((_, t) => userMessageOf(task, t));
      const tools = bfclToolsByTurn(task, dataDir).map((ts) => ts.map((t) => t.function.name));
      let answer = multiTurnAnswer(task, dataDir);
      if (sabotage.has(task.id) && answer.kind === "multi_turn") answer = { ...answer, turns: [answer.turns[0].slice(0, -1), ...answer.turns.slice(1)] };
      users.forEach((_, t) => this.add(key(users.slice(0, t + 1), tools[t]), answer));
    }
    for (const entry of entries.singleTurn ?? []) {
      const users = entry.question[0].filter((m) => m.role === "user").map((m) => m.content);
      this.add(key(users, singleTurnTools(entry).map((t) => t.function.name)), singleTurnAnswer(entry));
    }
    // Memory questions are told apart by their question and their back end's tools (the same question runs on kv and rec_sum).
    for (const q of entries.memory ?? []) {
      const category = q.id.startsWith("memory_kv") ? "memory_kv" : "memory_rec_sum";
      this.add(key(q.question[0].map((m) => m.content), memoryTools(category, dataDir).map((t) => t.function.name)), memoryAnswer(q));
    }
  }

  private add(k: string, answer: GroundTruthAnswer) {
    this.byKey.set(k, [...(this.byKey.get(k) ?? []), answer]);
  }

  /** The task the conversation belongs to. */
  answerFor(messages: readonly ChatMessage[], toolNames: readonly string[]): GroundTruthAnswer | null {
    const users = messages.filter((m) => m.role === "user").map((m) => m.content);
    const found = this.byKey.get(key(users, toolNames));
    if (!found) return null;
    if (found.length > 1) throw new Error(`ambiguous conversation: it fits ${found.map((f) => f.id).join(", ")}`);
    const answer = found[0];
    this.answered.set(answer.id, (this.answered.get(answer.id) ?? 0) + 1);
    return answer;
  }

  /** The act text for a request; a conversation of no known task (e.g. a memory prerequisite) gets a plain reply. */
  textFor(messages: readonly ChatMessage[], toolNames: readonly string[]): string {
    const answer = this.answerFor(messages, toolNames);
    return answer ? groundTruthText(answer, messages) : "Noted.";
  }

  /** As a PolicyClient (rehearse requests get a plausible result). */
  policy(): PolicyClient {
    return {
      generate: async (req) => {
        const text = req.role === "rehearse" ? '\n<execution_result>\n{"result": "ok"}\n</execution_result>' : this.textFor(req.messages, (req.tools ?? []).map((t) => t.function.name));
        return fakeGeneration(JSON.stringify(req.messages).slice(0, 2000), text);
      },
    };
  }

  /** As the scripted model of the vLLM double (act requests carry tools; others are rehearsals or summaries). */
  scriptedModel() {
    return (req: { messages: { role: string; content?: unknown }[]; tools?: { function: { name: string } }[] }): string => {
      const messages = req.messages.map((m) => ({ role: m.role as ChatMessage["role"], content: typeof m.content === "string" ? m.content : "" }));
      // Written as Qwen3 writes: a think block, then the answer (the node's reasoning parser splits them).
      if (!req.tools?.length) return '<think>\nPredicting the result.\n</think>\n\n<execution_result>\n{"result": "ok"}\n</execution_result>';
      return `<think>\nI know the answer.\n</think>\n\n${this.textFor(messages, req.tools.map((t) => t.function.name))}`;
    };
  }
}
