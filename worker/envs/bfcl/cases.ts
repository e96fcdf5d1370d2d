/**
 * Call cases for `npm run bfcl:calls`: JSON Lines, one case per line,
 * `{"id", "involved_classes", "initial_config", "long_context", "turns": [["call string", …], …]}`.
 * Each case gets its own environment; every call gives one `{"id", "turn", "index", "result"}` line.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { JsonSyntaxError, parseOrderedJson } from "../../../lib/python/json";
import { fromOrdered, PyDict } from "../../../lib/python/values";
import { BFCL_CLASS_NAMES, BfclDataError, isBfclClassName, type BfclClassName } from "./data";
import { createBfclEnvironment, type BfclEnvironmentOptions } from "./world";

export const callCaseSchema = z
  .object({
    id: z.string().min(1),
    involved_classes: z.array(z.string()).min(1),
    initial_config: z.record(z.string(), z.unknown()).default({}),
    long_context: z.boolean().default(false),
    turns: z.array(z.array(z.string())),
  })
  .strict();

export interface CallCase {
  id: string;
  involvedClasses: BfclClassName[];
  initialConfig: PyDict;
  longContext: boolean;
  turns: string[][];
}

export interface CallResultLine {
  id: string;
  turn: number;
  index: number;
  result: string;
}

/** Parse a cases file; errors name the file and line. */
export function readCallCases(file: string): CallCase[] {
  if (!existsSync(file)) throw new BfclDataError(`cases file not found: ${file}`);
  const text = readFileSync(file, "utf8");
  const cases: CallCase[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `${file}:${i + 1}`;
    let raw: unknown;
    let ordered: unknown;
    try {
      raw = JSON.parse(line);
      ordered = fromOrdered(parseOrderedJson(line));
    } catch (err) {
      throw new BfclDataError(`${where}: not valid JSON: ${err instanceof JsonSyntaxError || err instanceof SyntaxError ? err.message : String(err)}`);
    }
    const parsed = callCaseSchema.safeParse(raw);
    if (!parsed.success) {
      throw new BfclDataError(`${where}: ${parsed.error.issues.map((x) => `${x.path.join(".") || "(root)"}: ${x.message}`).join("; ")}`);
    }
    const unknown = parsed.data.involved_classes.filter((c) => !isBfclClassName(c));
    if (unknown.length > 0) throw new BfclDataError(`${where}: unknown classes ${unknown.join(", ")} (known: ${BFCL_CLASS_NAMES.join(", ")})`);
    const config = (ordered as PyDict).get("initial_config") ?? new PyDict();
    for (const key of (config as PyDict).keys()) {
      if (typeof key !== "string" || !isBfclClassName(key)) throw new BfclDataError(`${where}: initial_config has an unknown class ${String(key)}`);
    }
    cases.push({
      id: parsed.data.id,
      involvedClasses: parsed.data.involved_classes as BfclClassName[],
      initialConfig: config as PyDict,
      longContext: parsed.data.long_context,
      turns: parsed.data.turns,
    });
  });
  return cases;
}

/** Run each case on a fresh environment; `emit` gets one line per executed call, in order. */
export function runCallCases(cases: readonly CallCase[], emit: (line: CallResultLine) => void, opts: BfclEnvironmentOptions = {}): void {
  for (const c of cases) {
    const env = createBfclEnvironment({ id: c.id, involvedClasses: c.involvedClasses, initialConfig: c.initialConfig, longContext: c.longContext }, opts);
    c.turns.forEach((turn, t) => {
      turn.forEach((call, index) => emit({ id: c.id, turn: t, index, result: env.executeOne(call) }));
    });
  }
}
