/**
 * Replaying tool calls on a fresh environment: the gold "oracle" replay of a task (errors are part of
 * the expected outcome, spec §10.1) and a plain list of calls (the `tau2:calls` CLI).
 */
import { z } from "zod";
import { RetailEnv, type ToolResult } from "./env";
import type { RetailDb } from "./model";
import { Tau2InputError, type Tau2Task } from "./tasks";

export interface GoldReplay {
  task_id: string;
  /** How many gold calls returned an error. */
  errors: number;
  db_hash: string;
  results: (ToolResult & { name: string })[];
  env: RetailEnv;
}

/** Apply the task's gold actions in order on a fresh copy of `pristine`, continuing after errors. */
export function replayGoldActions(task: Tau2Task, pristine: RetailDb): GoldReplay {
  const env = new RetailEnv(pristine);
  const results = (task.evaluation_criteria?.actions ?? []).map((a) => ({ name: a.name, ...env.call(a.name, a.arguments) }));
  return { task_id: task.id, errors: results.filter((r) => r.error).length, db_hash: env.hash(), results, env };
}

export const toolCallSchema = z
  .object({ tool: z.string().min(1), arguments: z.record(z.unknown()).default({}) })
  .strict();
export type ToolCallSpec = z.infer<typeof toolCallSchema>;

/** Validate a parsed calls file; the error names the position of the first bad call. */
export function parseCalls(value: unknown, source = "calls file"): ToolCallSpec[] {
  if (!Array.isArray(value)) throw new Tau2InputError(`${source}: expected a JSON array of {"tool", "arguments"} objects`);
  return value.map((raw, i) => {
    const result = toolCallSchema.safeParse(raw);
    if (!result.success) {
      const issues = result.error.issues.map((x) => `${x.path.join(".") || "(call)"}: ${x.message}`).join("; ");
      throw new Tau2InputError(`${source}: call #${i} is invalid: ${issues}`);
    }
    return result.data;
  });
}

export function runCalls(calls: ToolCallSpec[], pristine: RetailDb): { results: (ToolResult & { tool: string })[]; env: RetailEnv } {
  const env = new RetailEnv(pristine);
  const results = calls.map((c) => ({ tool: c.tool, ...env.call(c.tool, c.arguments) }));
  return { results, env };
}
