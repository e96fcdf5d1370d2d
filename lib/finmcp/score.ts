/**
 * FinMCP-Bench's scorer, as upstream's `DianJin-TIR/eval/evaluation.py` (aliyun/qwen-dianjin @ fd9b511) computes it:
 *
 * - records with a truthy `error` are dropped (its `--drop_error_data` is `type=bool`, so always);
 * - a record missing `scenery`, `diff_level.level`, `messages` or a call's `function.name` is skipped (a KeyError
 *   there is caught); any other failure (a `None` task, a missing `messages_pred`, a value of the wrong type) stops
 *   the whole evaluation, as the Python script does — `FinmcpAbort` names the record and what Python would raise;
 * - per record: the tool names of every call in every message's non-empty `tool_calls` (arguments ignored), TP / FP /
 *   FN from the multiset intersection and differences, `consist` = the ordered lists are equal;
 * - metric blocks (overall, and per scenario = scenery up to the first "-", difficulty = diff_level.level, task with
 *   spaces as "_"): macro P/R/F1 = means over records, micro from the summed counts, N, consist_mean, each rounded
 *   once by Python's round(x, 4) (exact ties to even); with no records every value is 0.
 *
 * Shared by the worker (worker/envs/finmcp/scoring.ts), `npm run finmcp:score`, the run page and the reports.
 * Values keep Python's int/float distinction (PyInt vs number) so `pyJsonDumps` writes what `json.dumps` would.
 * The paper's names: TR = recall, TP = precision, TF1 = F1. Pure.
 */
import { PyInt, type OrderedJson } from "../python/json";
import { pyRound } from "../python/numbers";
import { pyStr, pyStrip } from "../python/repr";

/** A Python number as the scorer computes it: an int (PyInt) or a float. */
type PyNum = number | PyInt;

/** Upstream's evaluation would stop here (a Python exception other than the KeyError it catches). */
export class FinmcpAbort extends Error {
  constructor(
    readonly index: number,
    readonly pyError: string,
  ) {
    super(`record ${index}: ${pyError} (upstream's evaluation.py stops on this record)`);
    this.name = "FinmcpAbort";
  }
}

/** A KeyError upstream catches: the record is skipped (its message names the key, as Python prints it). */
export class FinmcpSkip extends Error {
  constructor(readonly key: string) {
    super(`KeyError: '${key}'`);
    this.name = "FinmcpSkip";
  }
}

/** One scored record (upstream's get_instance_result). */
export interface FinmcpRecord {
  classLevel1: string;
  /** diff_level.level as a group key (json.dumps' key text). */
  classDifficulty: string;
  /** diff_level.level as the record has it. */
  difficultyValue: OrderedJson;
  task: string;
  TP: number;
  FP: number;
  FN: number;
  consist: 0 | 1;
}

export interface FinmcpMetricBlock {
  macro_Precision: PyNum;
  macro_Recall: PyNum;
  macro_F1: PyNum;
  micro_Precision: PyNum;
  micro_Recall: PyNum;
  micro_F1: PyNum;
  N: PyInt;
  consist_mean: PyNum;
}

export interface FinmcpMetrics {
  overall: FinmcpMetricBlock;
  scenario: Map<string, FinmcpMetricBlock>;
  difficulty: Map<string, FinmcpMetricBlock>;
  task: Map<string, FinmcpMetricBlock>;
}

const typeName = (v: OrderedJson): string => {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (v instanceof PyInt) return "int";
  if (typeof v === "number") return "float";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  return "dict";
};

/** Python truthiness of a JSON value. */
export function truthy(v: OrderedJson | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v instanceof PyInt) return v.value !== 0;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string" || Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  return true;
}

class TypeErr extends Error {}

/** `container[key]` on a dict (KeyError when absent); TypeError on a value that is not a dict. */
function item(container: OrderedJson, key: string): OrderedJson {
  if (container instanceof Map) {
    if (!container.has(key)) throw new FinmcpSkip(key);
    return container.get(key)!;
  }
  if (typeof container === "string") throw new TypeErr("TypeError: string indices must be integers, not 'str'");
  if (Array.isArray(container)) throw new TypeErr("TypeError: list indices must be integers or slices, not str");
  throw new TypeErr(`TypeError: '${typeName(container)}' object is not subscriptable`);
}

/** Python iteration over a value (a dict yields its keys, a str its characters). */
function iterate(v: OrderedJson): OrderedJson[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Map) return [...v.keys()];
  if (typeof v === "string") return [...v];
  throw new TypeErr(`TypeError: '${typeName(v)}' object is not iterable`);
}

/** Python `'tool_calls' in turn`. */
function hasToolCalls(turn: OrderedJson): boolean {
  if (turn instanceof Map) return turn.has("tool_calls");
  if (typeof turn === "string") return turn.includes("tool_calls");
  if (Array.isArray(turn)) return turn.some((x) => x === "tool_calls");
  throw new TypeErr(`TypeError: argument of type '${typeName(turn)}' is not iterable`);
}

/** upstream's extract_toolcall_from_meg: the name of every call of every message with non-empty tool_calls, in order. */
export function toolNamesOf(messages: OrderedJson): string[] {
  const names: string[] = [];
  for (const turn of iterate(messages)) {
    if (!hasToolCalls(turn) || !truthy(item(turn, "tool_calls"))) continue;
    for (const call of iterate(item(turn, "tool_calls"))) names.push(pyStr(item(item(call, "function"), "name")));
  }
  return names;
}

/** TP / FP / FN of predicted against gold tool names as multisets (Counter &, −). */
export function toolCounts(pred: readonly string[], gold: readonly string[]): { TP: number; FP: number; FN: number } {
  const count = (xs: readonly string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const p = count(pred);
  const g = count(gold);
  let TP = 0;
  let FP = 0;
  let FN = 0;
  for (const [k, n] of p) {
    TP += Math.min(n, g.get(k) ?? 0);
    FP += Math.max(0, n - (g.get(k) ?? 0));
  }
  for (const [k, n] of g) FN += Math.max(0, n - (p.get(k) ?? 0));
  return { TP, FP, FN };
}

const equalLists = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A group key as json.dumps writes a dict key (None → "null", True → "true", 1 → "1"); a dict or list is unhashable. */
function keyText(v: OrderedJson): string {
  if (v instanceof Map || Array.isArray(v)) throw new TypeErr(`TypeError: unhashable type: '${typeName(v)}'`);
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  return pyStr(v);
}

/**
 * upstream's get_instance_result on one record (a sample with its prediction laid over it). Throws FinmcpSkip for the
 * KeyErrors upstream catches and FinmcpAbort (with `index`) for what would stop it.
 */
export function instanceResult(record: Map<string, OrderedJson>, index: number): FinmcpRecord {
  try {
    const scenery = item(record, "scenery");
    if (typeof scenery !== "string") throw new TypeErr(`AttributeError: '${typeName(scenery)}' object has no attribute 'split'`);
    const classLevel1 = pyStrip(scenery.split("-")[0]!);
    const difficultyValue = item(item(record, "diff_level"), "level");
    const classDifficulty = keyText(difficultyValue);
    const rawTask = record.has("task") ? record.get("task")! : "any";
    if (typeof rawTask !== "string") throw new TypeErr(`AttributeError: '${typeName(rawTask)}' object has no attribute 'replace'`);
    const task = rawTask.replaceAll(" ", "_");
    const gold = toolNamesOf(item(record, "messages"));
    if (!record.has("messages_pred")) throw new TypeErr("ValueError: messages_pred not found in data_dict");
    const pred = toolNamesOf(record.get("messages_pred")!);
    return { classLevel1, classDifficulty, difficultyValue, task, ...toolCounts(pred, gold), consist: equalLists(gold, pred) ? 1 : 0 };
  } catch (e) {
    if (e instanceof TypeErr) throw new FinmcpAbort(index, e.message);
    throw e;
  }
}

/** upstream's safe_div: a / b when b > 0, else the int 0. */
const safeDiv = (a: number, b: number): PyNum => (b > 0 ? a / b : new PyInt(0));
const num = (x: PyNum) => (x instanceof PyInt ? x.value : x);
/** Python's round(x, 4): an int stays an int. */
const round4 = (x: PyNum): PyNum => (x instanceof PyInt ? x : (pyRound(x, 4n) as number));
/** Python's sum() of ints and floats: an int while every term is one. */
function pySum(xs: readonly PyNum[]): PyNum {
  let total: PyNum = new PyInt(0);
  for (const x of xs) total = total instanceof PyInt && x instanceof PyInt ? new PyInt(total.value + x.value) : num(total) + num(x);
  return total;
}

function perRecord(r: { TP: number; FP: number; FN: number }): { p: PyNum; r: PyNum; f1: PyNum } {
  const p = safeDiv(r.TP, r.TP + r.FP);
  const rec = safeDiv(r.TP, r.TP + r.FN);
  return { p, r: rec, f1: safeDiv(2 * num(p) * num(rec), num(p) + num(rec)) };
}

/** One metric block over records (the group blocks and the overall block are computed alike). */
export function metricBlock(records: readonly { TP: number; FP: number; FN: number; consist: number }[]): FinmcpMetricBlock {
  const per = records.map(perRecord);
  const mean = (xs: PyNum[]): PyNum => (xs.length ? round4(num(pySum(xs)) / xs.length) : new PyInt(0));
  const TP = records.reduce((s, r) => s + r.TP, 0);
  const FP = records.reduce((s, r) => s + r.FP, 0);
  const FN = records.reduce((s, r) => s + r.FN, 0);
  const microP = safeDiv(TP, TP + FP);
  const microR = safeDiv(TP, TP + FN);
  const microF1 = safeDiv(2 * num(microP) * num(microR), num(microP) + num(microR));
  return {
    macro_Precision: mean(per.map((x) => x.p)),
    macro_Recall: mean(per.map((x) => x.r)),
    macro_F1: mean(per.map((x) => x.f1)),
    micro_Precision: round4(microP),
    micro_Recall: round4(microR),
    micro_F1: round4(microF1),
    N: new PyInt(records.length),
    consist_mean: records.length ? round4(records.reduce((s, r) => s + r.consist, 0) / records.length) : new PyInt(0),
  };
}

function grouped(records: readonly FinmcpRecord[], key: (r: FinmcpRecord) => string): Map<string, FinmcpMetricBlock> {
  const groups = new Map<string, FinmcpRecord[]>();
  for (const r of records) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return new Map([...groups].map(([k, rs]) => [k, metricBlock(rs)]));
}

/** upstream's compute_metrics: the overall block and the blocks per scenario, difficulty and task (first-seen order). */
export function computeMetrics(records: readonly FinmcpRecord[]): FinmcpMetrics {
  return {
    overall: metricBlock(records),
    scenario: grouped(records, (r) => r.classLevel1),
    difficulty: grouped(records, (r) => r.classDifficulty),
    task: grouped(records, (r) => r.task),
  };
}

export interface ScoredRecord extends FinmcpRecord {
  /** 0-based position among the input records. */
  index: number;
}

/** The records upstream scores: errors dropped, KeyErrors skipped (with why), in input order. */
export function scoreRecords(records: readonly Map<string, OrderedJson>[]): { scored: ScoredRecord[]; dropped: number[]; skipped: { index: number; reason: string }[] } {
  const scored: ScoredRecord[] = [];
  const dropped: number[] = [];
  const skipped: { index: number; reason: string }[] = [];
  records.forEach((record, index) => {
    if (truthy(record.get("error"))) {
      dropped.push(index);
      return;
    }
    try {
      scored.push({ index, ...instanceResult(record, index) });
    } catch (e) {
      if (e instanceof FinmcpSkip) skipped.push({ index, reason: e.message });
      else throw e;
    }
  });
  return { scored, dropped, skipped };
}

/** A metric block as an ordered value for pyJsonDumps (upstream's key order). */
export function blockJson(b: FinmcpMetricBlock): Map<string, OrderedJson> {
  return new Map<string, OrderedJson>([
    ["macro_Precision", b.macro_Precision],
    ["macro_Recall", b.macro_Recall],
    ["macro_F1", b.macro_F1],
    ["micro_Precision", b.micro_Precision],
    ["micro_Recall", b.micro_Recall],
    ["micro_F1", b.micro_F1],
    ["N", b.N],
    ["consist_mean", b.consist_mean],
  ]);
}

/** A block's figures as plain numbers (metric points, the report). */
export function blockNumbers(b: FinmcpMetricBlock): Record<keyof FinmcpMetricBlock, number> {
  return {
    macro_Precision: num(b.macro_Precision),
    macro_Recall: num(b.macro_Recall),
    macro_F1: num(b.macro_F1),
    micro_Precision: num(b.micro_Precision),
    micro_Recall: num(b.micro_Recall),
    micro_F1: num(b.micro_F1),
    N: b.N.value,
    consist_mean: num(b.consist_mean),
  };
}
