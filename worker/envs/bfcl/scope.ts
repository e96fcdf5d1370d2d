/**
 * Python module-level state that upstream's back ends share between instances: the long-context
 * padding objects of `long_context.py` (TravelAPI stores the extension cards and bookings by
 * reference, VehicleControlAPI writes into LONG_WEATHER_EXTENSION) and mutable default arguments
 * (`TwitterAPI.post_tweet(tags=[], mentions=[])`, which `mention()` can extend).
 *
 * Upstream shares these across a whole process; here one scope belongs to one task evaluation (the
 * model's and the ground truth's instances of that task share it, as they do upstream), so nothing
 * leaks from one task into another.
 */
import { pyDeepCopy, PyDict, type PyValue } from "../../../lib/python/values";
import type { LongContextData } from "./data";

export class ModuleScope {
  private readonly defaults = new Map<string, PyValue>();
  private longContextCopy: LongContextData | undefined;

  constructor(
    private readonly loadLongContext: () => LongContextData,
    /** Epoch milliseconds for `datetime.today()` (TravelAPI's age check). */
    readonly now: () => number = Date.now,
  ) {}

  /** The value of a default argument, created once per scope like Python's once-per-`def`. */
  functionDefault(key: string, create: () => PyValue): PyValue {
    if (!this.defaults.has(key)) this.defaults.set(key, create());
    return this.defaults.get(key)!;
  }

  /** This scope's own copy of `long_context.py`'s constants (read from the data directory on first use). */
  longContext(): LongContextData {
    this.longContextCopy ??= copyLongContext(this.loadLongContext());
    return this.longContextCopy;
  }
}

function copyLongContext(source: LongContextData): LongContextData {
  const copy = new Map<string, PyValue>();
  const memo = new Map<unknown, unknown>();
  for (const [name, value] of source.values) copy.set(name, pyDeepCopy(value, memo));
  return { values: copy, source: source.source };
}

/** A named constant of long_context.py, checked for its expected Python type. */
export function longContextValue<T extends "list" | "dict" | "str">(data: LongContextData, name: string, kind: T): T extends "list" ? PyValue[] : T extends "dict" ? PyDict : string {
  const v = data.values.get(name);
  const ok = kind === "list" ? Array.isArray(v) : kind === "dict" ? v instanceof PyDict : typeof v === "string";
  if (v === undefined || !ok) throw new Error(`${data.source}: expected ${name} to be a ${kind}`);
  return v as never;
}
