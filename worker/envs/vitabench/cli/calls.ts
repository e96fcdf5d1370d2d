/**
 * npm run -s vita:calls -- --cases FILE
 * Each case runs its calls on a fresh world (the task's environment, its domain and language) with datetime.now()
 * frozen at the case's clock (UTC; a call's own "clock" moves it), one output line per call:
 * {"case","index","tool","error","content","state_hash"}.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { fromPlainJson, PyDict } from "../../../../lib/python/values";
import { pyFromJsonText } from "../../../../lib/python/values";
import { findTask, resolveTaskFile } from "../data";
import { createWorld, languageOf } from "../index";
import { FixedClock } from "../registry";
import { argValue, casesOf } from "./common";

const caseSchema = z.object({
  id: z.string(),
  task_file: z.string(),
  task_id: z.string(),
  lang: z.enum(["zh", "en"]),
  domain: z.string(),
  clock: z.string(),
  calls: z.array(z.object({ tool: z.string(), arguments: z.unknown().optional(), clock: z.string().optional() })),
});

export function runCallsCase(line: string): string[] {
  const raw = JSON.parse(line) as { calls?: { arguments?: unknown }[] };
  const c = caseSchema.parse(raw);
  // Arguments as Python's json.loads gives them (1 vs 1.0 matters to the tools' texts).
  const argTexts = (pyFromJsonText(line) as PyDict).get("calls") as PyDict[];
  const task = findTask(resolveTaskFile(c.task_file), c.task_id);
  const clock = new FixedClock(c.clock);
  const world = createWorld(c.domain, task.environment, languageOf(c.lang), clock);
  return c.calls.map((call, index) => {
    if (call.clock) clock.set(call.clock);
    const args = argTexts[index]!.get("arguments") ?? fromPlainJson({});
    const { content, error } = world.call(call.tool, args);
    return JSON.stringify({ case: c.id, index, tool: call.tool, error, content, state_hash: world.stateHash() });
  });
}

if (process.argv[1]?.endsWith("calls.ts")) {
  for (const line of casesOf(readFileSync(argValue("--cases"), "utf8"))) for (const out of runCallsCase(line)) process.stdout.write(out + "\n");
}
