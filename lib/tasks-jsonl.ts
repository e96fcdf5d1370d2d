/**
 * Importer for the simple task format: JSONL, one task per line — instructions plus checklist items —
 * for environments whose tools come from elsewhere (an MCP server: `mcp:<server>/<dataset>`).
 *
 *   {"id": "ada", "instruction": "Remember that Ada likes tea.",
 *    "checklist": ["Did the assistant store that Ada likes tea?",
 *                  {"question": "Called create_entities", "check": {"type": "tool_called", "name": "create_entities"}}],
 *    "setup": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "…"}}]}
 *
 * - `instruction` + `checklist` is one user turn; `turns: [{instruction, checklist}, …]` several (each
 *   later instruction is the next user message; the checklist's turns follow them).
 * - A checklist item is a question for the LLM judge (a string), or an object with `question` and
 *   optionally `pass_condition`, `focus_on`, `weight` (default 1), `required_for_next_turn`,
 *   `failure_examples`, and a programmatic `check` (`tool_called` {name, args?} or `reply_contains`
 *   {all}) that needs no judge.
 * - Optional: `system` (a system message), `tools` (OpenAI function tools, for runs without a tool
 *   server; an MCP server's own tools replace them), `setup` (tool calls made on the episode's fresh
 *   server before the policy starts: the initial state), `data_source`.
 * Every line is validated with zod; errors name the line and the field. Pure: text in, instances out.
 */
import { z } from "zod";
import type { ChatMessage, ToolSchema } from "../contracts/chat";
import { type ChecklistItem, focusOnValues, type TaskSpec } from "../contracts/tasks";
import { cm2ToolSchema, type Cm2ImportError } from "./cm2";

const checkSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("tool_called"), name: z.string().min(1), args: z.record(z.unknown()).optional() }).strict(),
  z.object({ type: z.literal("reply_contains"), all: z.array(z.string().min(1)).min(1) }).strict(),
]);

const objectItemSchema = z
  .object({
    id: z.union([z.string().min(1), z.number()]).optional(),
    question: z.string().trim().min(1, "question is empty"),
    pass_condition: z.string().optional(),
    focus_on: z.enum(focusOnValues).optional(),
    weight: z.number().min(0).default(1),
    required_for_next_turn: z.boolean().default(false),
    failure_examples: z.array(z.string()).default([]),
    check: checkSchema.optional(),
  })
  .strict();
const stringItemSchema = z.string().trim().min(1, "a checklist item is empty");

/** A string (a question for the judge) or an item object; errors name the field inside the item (a plain union would only say "Invalid input"). */
const itemSchema = z.unknown().transform((value, ctx): string | z.infer<typeof objectItemSchema> => {
  const parsed = typeof value === "string" ? stringItemSchema.safeParse(value) : objectItemSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, message: issue.message } as z.IssueData);
  return z.NEVER;
});

const turnSchema = z
  .object({
    instruction: z.string().trim().min(1, "instruction is empty"),
    checklist: z.array(itemSchema).min(1, "a turn needs at least one checklist item"),
  })
  .strict();

const callSchema = z.object({ name: z.string().min(1, "a setup call needs a tool name"), arguments: z.record(z.unknown()).default({}) }).strict();
export type SetupCall = z.infer<typeof callSchema>;

export const taskRowSchema = z
  .object({
    id: z.union([z.string().trim().min(1).max(200), z.number().int()]).optional(),
    data_source: z.string().min(1).max(100).default("tasks"),
    system: z.string().optional(),
    instruction: z.string().trim().min(1, "instruction is empty").optional(),
    checklist: z.array(itemSchema).min(1, "checklist needs at least one item").optional(),
    turns: z.array(turnSchema).min(1, "turns is empty").max(100).optional(),
    tools: z.array(cm2ToolSchema).optional(),
    setup: z.array(callSchema).max(100).default([]),
  })
  .strict()
  .superRefine((row, ctx) => {
    const single = row.instruction !== undefined || row.checklist !== undefined;
    if (single && row.turns) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["turns"], message: "give either instruction + checklist or turns, not both" });
    else if (!single && !row.turns) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["instruction"], message: "a task needs an instruction and a checklist (or turns)" });
    else if (single && row.instruction === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["instruction"], message: "instruction is required with a checklist" });
    else if (single && row.checklist === undefined) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["checklist"], message: "checklist is required with an instruction" });
  });

/** The stored instance: a plain task (the engine's TaskInstance without its runtime parts) plus the setup calls the MCP environment makes. */
export type StoredTask = TaskSpec & { setup?: SetupCall[] };

export type TasksImportResult = { ok: true; instances: StoredTask[]; skipped: Cm2ImportError[] } | { ok: false; errors: Cm2ImportError[] };

/** Does this text look like the task format (its first row has `instruction` or `turns`)? */
export function looksLikeTasks(text: string): boolean {
  const first = text.split("\n").find((l) => l.trim());
  if (!first) return false;
  try {
    const row = JSON.parse(first) as unknown;
    return typeof row === "object" && row !== null && !Array.isArray(row) && ("instruction" in row || "turns" in row);
  } catch {
    return false;
  }
}

function item(raw: z.output<typeof itemSchema>, k: number): ChecklistItem {
  if (typeof raw === "string") {
    return { id: `C${k}`, question: raw, focus_on: "assistant.tool_calls", pass_condition: raw, failure_examples: [], evidence: [], weight: 1, required_for_next_turn: false };
  }
  return {
    id: raw.id === undefined ? `C${k}` : String(raw.id),
    question: raw.question,
    focus_on: raw.focus_on ?? (raw.check?.type === "reply_contains" ? "assistant.content.user_visible_reply" : "assistant.tool_calls"),
    pass_condition: raw.pass_condition ?? raw.question,
    failure_examples: raw.failure_examples,
    evidence: [],
    weight: raw.weight,
    required_for_next_turn: raw.required_for_next_turn,
    ...(raw.check ? { check: raw.check } : {}),
  };
}

function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join(".") : "row"}: ${i.message}`)
    .join("; ");
}

/** Import tasks from JSONL text (one task per line); all-or-nothing unless `skipInvalid`. */
export function importTasks(text: string, options: { skipInvalid?: boolean; idPrefix?: string } = {}): TasksImportResult {
  const errors: Cm2ImportError[] = [];
  const instances: StoredTask[] = [];
  const seen = new Set<string>();
  const lines = text.split("\n");
  let row = 0;
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    const line = i + 1;
    const index = row++;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      errors.push({ line, row: index, message: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    const parsed = taskRowSchema.safeParse(value);
    if (!parsed.success) {
      errors.push({ line, row: index, message: issuesText(parsed.error) });
      return;
    }
    const t = parsed.data;
    const turns = t.turns ?? [{ instruction: t.instruction!, checklist: t.checklist! }];
    const id = `${options.idPrefix ?? "task"}-${t.id ?? line}`;
    if (seen.has(id)) {
      errors.push({ line, row: index, message: `duplicate id (${t.id ?? line})` });
      return;
    }
    seen.add(id);
    const messages: ChatMessage[] = [...(t.system ? [{ role: "system" as const, content: t.system }] : []), { role: "user", content: turns[0]!.instruction }];
    instances.push({
      id,
      dataSource: t.data_source,
      messages,
      tools: (t.tools ?? []) as unknown as ToolSchema[],
      followUpUserMessages: turns.slice(1).map((turn) => turn.instruction),
      checklists: [turns.map((turn) => turn.checklist.map(item))],
      ...(t.setup.length ? { setup: t.setup } : {}),
    });
  });
  if (row === 0) return { ok: false, errors: [{ line: 1, row: -1, message: "no tasks found (one JSON object per line)" }] };
  if (errors.length > 0 && !options.skipInvalid) return { ok: false, errors };
  return { ok: true, instances, skipped: errors };
}
