/**
 * One FinMCP-Bench sample as upstream's inference_api.py runs it (process_one_sample / call_with_messages):
 *
 * - a turn starts at each user message; the model sees the GOLD history up to that message (gold calls and recorded
 *   outputs of earlier turns included; its own earlier turns are never fed back) and the whole tool-schema set;
 * - within the turn the model's calls run and their answers are appended until it replies without calls, a new round
 *   starting only while the calls run in the turn are ≤ max_tool_num (20): the engine's
 *   `maxExecutedCallsPerUserTurn`, the last reply's calls then kept unrun but scored;
 * - `messages_pred` is the sample's system and user messages with each turn's new assistant (reasoning_content,
 *   content, tool_calls or null) and tool messages after its user message;
 * - any exception (arguments that are not JSON, a failed generation) makes the sample an error record, which the
 *   scorer drops — here the episode's `error`, left out of every score as upstream's scorer leaves it out.
 *
 * Turns are independent (each starts from gold), so the sample is one engine episode for its last turn, whose world
 * first runs the earlier turns as nested episodes (WorldContext.runEpisode) with the same policy and settings. The
 * trajectory holds the last turn; its score detail holds the whole `messages_pred` and upstream's per-sample counts.
 */
import { parseActOutput } from "../../engine/parsers";
import type { ChatMessage, ToolSchema } from "../../engine/io";
import type { TurnRecord } from "../../engine/machine";
import type { EpisodeScore, EpisodeScoreContext, TaskInstance, ToolEnvironment, WorldContext } from "../../engine/types";
import { userTurns, type FinmcpMessage, type FinmcpSample } from "../../../lib/finmcp/data";
import type { OrderedJson } from "../../../lib/python/json";
import { FinmcpAbort, FinmcpSkip, instanceResult, toolNamesOf } from "./scoring";

/** What answers one turn's calls (a replay of the gold outputs, or a session of the live server). */
export type FinmcpWorldFactory = (sample: FinmcpSample, turn: number) => ToolEnvironment | Promise<ToolEnvironment>;

export interface FinmcpEpisodeOptions {
  /** `finmcp:<file>`: the instances' dataSource. */
  dataSource: string;
  tools: ToolSchema[];
  maxToolCalls: number;
  world: FinmcpWorldFactory;
  /** "replay" or "mcp:<server>", kept with every score. */
  mode: string;
}

/** A gold message as the engine's conversation carries it. */
export function chatMessageOf(m: FinmcpMessage): ChatMessage {
  const out: ChatMessage = { role: m.role, content: m.content ?? "" };
  if (m.role === "assistant" && m.tool_calls?.length) out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } }));
  if (m.role === "tool") {
    if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
    if (m.name) out.name = m.name;
  }
  return out;
}

/** One turn's outcome, from its episode. */
export interface TurnOutcome {
  turn: number;
  records: TurnRecord[];
  terminationReason: string;
}

const THINK = /^\s*<think>([\s\S]*?)<\/think>\s*/;

/** An act generation as upstream's AssistantMessage.get_message_dict writes it. */
function assistantOf(r: TurnRecord): Map<string, OrderedJson> {
  const think = THINK.exec(r.text);
  const reasoning = think ? think[1]!.replace(/^\n+|\n+$/g, "") : "";
  const rest = think ? r.text.slice(think[0].length) : r.text;
  const parsed = parseActOutput(rest);
  const content = parsed.kind === "tool_calls" ? parsed.content : rest;
  const calls = r.calls ?? [];
  return new Map<string, OrderedJson>([
    ["reasoning_content", reasoning],
    ["content", content.replace(/\s+$/, "")],
    ["role", "assistant"],
    [
      "tool_calls",
      calls.length
        ? calls.map(
            (c, index) =>
              new Map<string, OrderedJson>([
                ["id", c.id],
                ["function", new Map<string, OrderedJson>([["arguments", c.argumentsJson], ["name", c.name]])],
                ["type", "function"],
                ["index", index],
              ]),
          )
        : null,
    ],
  ]);
}

/** The messages one turn added, as upstream records them (assistant messages and the tool answers of their calls). */
function turnMessages(records: readonly TurnRecord[]): Map<string, OrderedJson>[] {
  const out: Map<string, OrderedJson>[] = [];
  for (const r of records) {
    if (r.role === "act") out.push(assistantOf(r));
    else if (r.role === "environment" && r.call && !r.error)
      out.push(new Map<string, OrderedJson>([["content", r.text], ["role", "tool"], ["tool_call_id", r.call.id]]));
  }
  return out;
}

/** `messages_pred`: the sample's system and user messages, each user message followed by its turn's new messages. */
export function messagesPred(raw: Map<string, OrderedJson>, turns: readonly TurnOutcome[]): Map<string, OrderedJson>[] {
  const byTurn = new Map(turns.map((t) => [t.turn, t]));
  const out: Map<string, OrderedJson>[] = [];
  let turn = 0;
  const messages = raw.get("messages");
  for (const m of Array.isArray(messages) ? messages : []) {
    const role = m instanceof Map ? m.get("role") : undefined;
    if (!(m instanceof Map) || (role !== "system" && role !== "user")) continue;
    // A copy of the message as the sample has it (upstream's copy.deepcopy(turn)).
    out.push(new Map(m));
    if (role === "user") out.push(...turnMessages(byTurn.get(turn++)?.records ?? []));
  }
  return out;
}

/** Why a turn makes the sample an error record (upstream: an exception in process_one_sample), or null. */
export function turnError(t: TurnOutcome): string | null {
  const reason = t.terminationReason;
  if (reason.startsWith("act_parse_error:")) {
    const act = [...t.records].reverse().find((r) => r.role === "act" && r.error);
    return `turn ${t.turn + 1}: the reply's tool call could not be read (${reason.slice("act_parse_error:".length)}${act?.error?.payload ? `: ${JSON.stringify(act.error.payload).slice(0, 300)}` : ""}); upstream's json.loads raises here`;
  }
  if (reason === "generation_failed") {
    const act = [...t.records].reverse().find((r) => r.role === "act" && r.error);
    return `turn ${t.turn + 1}: the policy node failed to generate${act?.error?.payload ? ` (${String(act.error.payload).slice(0, 300)})` : ""}`;
  }
  if (reason.startsWith("environment_error:")) return `turn ${t.turn + 1}: the tool back end failed (${reason.slice("environment_error:".length)})`;
  return null;
}

/** What a FinMCP score keeps (the trajectory's detail): upstream's per-sample record and its messages_pred. */
export interface FinmcpScoreDetail {
  index: number;
  mode: string;
  classLevel1: string | null;
  classDifficulty: string | null;
  task: string | null;
  gold: string[];
  pred: string[];
  TP: number;
  FP: number;
  FN: number;
  consist: 0 | 1;
  turns: { turn: number; termination: string }[];
  /** Why upstream would not score the sample (an error record, or a KeyError its scorer skips). */
  notScored?: string;
  messagesPred: unknown[];
}

const plain = (v: OrderedJson): unknown => (v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [k, plain(x)])) : Array.isArray(v) ? v.map(plain) : v);

/** Upstream's score of one sample from its turns' outcomes. */
export function scoreSample(index: number, raw: Map<string, OrderedJson>, turns: readonly TurnOutcome[], mode: string): EpisodeScore {
  const base = { index, mode, turns: turns.map((t) => ({ turn: t.turn, termination: t.terminationReason })) };
  const error = turns.map(turnError).find((e) => e !== null);
  const gold = (() => {
    try {
      return toolNamesOf(raw.get("messages") ?? []);
    } catch {
      return [];
    }
  })();
  if (error) {
    const detail: FinmcpScoreDetail = { ...base, classLevel1: null, classDifficulty: null, task: null, gold, pred: [], TP: 0, FP: 0, FN: 0, consist: 0, notScored: `error record: ${error}`, messagesPred: [] };
    return { reward: 0, verdicts: [], error, detail: { finmcp: detail } };
  }
  const pred = messagesPred(raw, turns);
  const record = new Map(raw);
  record.set("messages_pred", pred);
  const predNames = toolNamesOf(pred);
  try {
    const r = instanceResult(record, index);
    const p = r.TP + r.FP > 0 ? r.TP / (r.TP + r.FP) : 0;
    const rec = r.TP + r.FN > 0 ? r.TP / (r.TP + r.FN) : 0;
    const f1 = p + rec > 0 ? (2 * p * rec) / (p + rec) : 0;
    const detail: FinmcpScoreDetail = { ...base, classLevel1: r.classLevel1, classDifficulty: r.classDifficulty, task: r.task, gold, pred: predNames, TP: r.TP, FP: r.FP, FN: r.FN, consist: r.consist, messagesPred: pred.map(plain) };
    // The reward is the sample's TF1; success is an exact match of the ordered tool lists (upstream's `consist`).
    return { reward: f1, success: r.consist === 1, verdicts: [], detail: { finmcp: detail } };
  } catch (e) {
    if (!(e instanceof FinmcpSkip) && !(e instanceof FinmcpAbort)) throw e;
    const why = e instanceof FinmcpSkip ? `upstream's scorer skips this sample (${e.message})` : e.message;
    const detail: FinmcpScoreDetail = { ...base, classLevel1: null, classDifficulty: null, task: null, gold, pred: predNames, TP: 0, FP: 0, FN: 0, consist: 0, notScored: why, messagesPred: pred.map(plain) };
    return { reward: 0, verdicts: [], error: why, errorKind: "scoring", detail: { finmcp: detail } };
  }
}

/** The engine instance of one sample (`id` = its 0-based position, as the scorer's `index`). */
export function finmcpInstance(index: number, sample: FinmcpSample, raw: Map<string, OrderedJson>, o: FinmcpEpisodeOptions): TaskInstance {
  const starts = userTurns(sample);
  const last = starts.length - 1;
  const history = (turn: number) => sample.messages.slice(0, starts[turn]! + 1).map(chatMessageOf);
  const turnInstance = (turn: number, extra: Partial<TaskInstance> = {}): TaskInstance => ({
    id: `${index}`,
    dataSource: o.dataSource,
    messages: history(turn),
    tools: o.tools,
    followUpUserMessages: [],
    checklists: [],
    maxExecutedCallsPerUserTurn: o.maxToolCalls,
    environment: { create: () => o.world(sample, turn) },
    // Earlier turns are not scored on their own: the sample is scored once, over all its turns.
    scoreEpisode: () => ({ reward: 0, verdicts: [] }),
    ...extra,
  });
  /** Earlier turns' outcomes per trial (rolloutIndex): run while the last turn's world is created. */
  const earlier = new Map<number, TurnOutcome[]>();
  return turnInstance(last, {
    environment: {
      async create(ctx?: WorldContext) {
        const outcomes: TurnOutcome[] = [];
        for (let turn = 0; turn < last; turn++) {
          if (!ctx) throw new Error(`FinMCP sample ${index}: its earlier turns need the rollout's context`);
          const r = await ctx.runEpisode(turnInstance(turn), `turn:${turn + 1}`);
          outcomes.push({ turn, records: r.records, terminationReason: r.terminationReason });
        }
        earlier.set(ctx?.rolloutIndex ?? 0, outcomes);
        return o.world(sample, last);
      },
    },
    scoreEpisode: (ctx: EpisodeScoreContext) => {
      const turns = [...(earlier.get(ctx.rolloutIndex ?? 0) ?? []), { turn: last, records: ctx.records, terminationReason: ctx.terminationReason }];
      earlier.delete(ctx.rolloutIndex ?? 0);
      return scoreSample(index, raw, turns, o.mode);
    },
  });
}
