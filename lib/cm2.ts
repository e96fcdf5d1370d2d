/**
 * Importer for CM2-format checklist datasets (envace-method.md §6): a JSON array of rows or JSONL
 * (one row per line). Every row is validated with zod; errors name the line. The import is
 * all-or-nothing unless `skipInvalid` is set. Pure: text in, normalised instances out. Used by the
 * datasets API (server/features/datasets); the worker reads the stored instances back (worker/envs/dataset.ts).
 *
 * Prompt-length filter (reference checklist_dataset.py `maybe_filter_out_long_prompts`): with
 * `promptLength`, a row whose prompt — its `messages` rendered with the chat template, the tool schemas
 * as verl's `OpenAIFunctionToolSchema` dumps them, and the generation prompt — is longer than
 * `maxTokens` (the reference: max_prompt_length − 500) is dropped and reported with its line.
 */
import { z } from "zod";
// The importer's output is a plain task (contracts/tasks.ts), which the engine runs as its TaskInstance; it
// runs in the web server (importing a file) without loading any worker code.
import type { ChatMessage, ToolSchema } from "../contracts/chat";
import { type ChecklistItem, focusOnValues, type TaskSpec } from "../contracts/tasks";
import { describeUnstorable, findUnstorableText } from "./text-hygiene";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const propertySchema = z
  .object({
    type: z.union([z.string(), z.array(z.string())], { required_error: "every property needs a type" }),
    description: z.string().optional(),
    enum: z.array(z.string(), { invalid_type_error: "enum must be a list of strings" }).optional(),
  })
  .passthrough();

export const cm2ToolSchema = z
  .object({
    type: z.literal("function"),
    function: z
      .object({
        name: z.string().min(1, "tool name is empty"),
        description: z.string({ required_error: "tool description is required" }),
        parameters: z
          .object({
            type: z.literal("object"),
            properties: z.record(propertySchema),
            required: z.array(z.string()).default([]),
          })
          .passthrough(),
        strict: z.boolean().optional(),
      })
      .passthrough(),
  })
  .passthrough();

const toolCallSchema = z.object({
  id: z.string().optional().default(""),
  type: z.literal("function").optional().default("function"),
  function: z.object({
    name: z.string().min(1, "tool call name is empty"),
    arguments: z.union([z.string(), z.record(z.unknown())]),
  }),
});

const messageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool", "observation"]),
  content: z.string().nullable().optional(),
  name: z.string().optional(),
  tool_calls: z.array(toolCallSchema).nullable().optional(),
});

export const cm2ChecklistItemSchema = z
  .object({
    id: z.union([z.string(), z.number()]).optional(),
    question: z.string().min(1, "question is empty"),
    focus_on: z.enum(focusOnValues),
    pass_condition: z.string(),
    failure_examples: z.array(z.string()).default([]),
    evidence: z.array(z.object({ snippet: z.string() }).passthrough()).default([]),
    weight: z.number({ required_error: "weight is required (move CM2's per-turn weight map onto items)" }).min(0),
    required_for_next_turn: z.boolean().default(false),
  })
  .passthrough();

export const cm2RowSchema = z.object({
  data_source: z.string().default("checklist"),
  messages: z.array(messageSchema).min(1, "messages is empty"),
  extra_info: z.object({
    index: z.union([z.number(), z.string()]).optional(),
    original_index: z.union([z.number(), z.string()], { required_error: "extra_info.original_index is required" }),
    tools: z.union([z.string(), z.array(z.unknown())]),
    messages: z.array(messageSchema).optional(),
    interaction_kwargs: z.object({
      checklist_list: z.array(z.array(z.array(cm2ChecklistItemSchema))).min(1, "checklist_list is empty"),
    }),
  }),
});

export interface Cm2ImportError {
  /** 1-based line where the row starts. */
  line: number;
  /** 0-based row index. */
  row: number;
  message: string;
}

/** A row dropped because its prompt is longer than the limit. */
export interface Cm2FilteredRow {
  line: number;
  row: number;
  id: string;
  tokens: number;
  limit: number;
}

export interface Cm2ImportOptions {
  /**
   * Drop rows whose prompt is longer than `maxTokens` tokens, counted by `count` (the messages and the
   * verl-normalised tool schemas, as the reference's dataset filter renders them).
   */
  promptLength?: { maxTokens: number; count: (messages: { role: string; content: string }[], tools: unknown[] | null) => number };
  skipInvalid?: boolean;
  /** Keep at most this many checklists per row (reference max_num_checklist; default all). */
  maxChecklists?: number;
  /** Instance id prefix (default "cm2"). */
  idPrefix?: string;
}

export type Cm2ImportResult =
  | { ok: true; instances: TaskSpec[]; skipped: Cm2ImportError[]; filtered: Cm2FilteredRow[] }
  | { ok: false; errors: Cm2ImportError[] };

/**
 * A tool schema as verl's pydantic `OpenAIFunctionToolSchema(...).model_dump(exclude_none=True)` gives it
 * to the chat template: only the modelled fields, in their declared order, `strict` defaulting to false.
 */
export function verlToolSchema(tool: z.infer<typeof cm2ToolSchema>): Record<string, unknown> {
  const f = tool.function;
  const properties: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(f.parameters.properties)) {
    properties[k] = { type: p.type, ...(p.description != null ? { description: p.description } : {}), ...(p.enum != null ? { enum: p.enum } : {}) };
  }
  return {
    type: tool.type,
    function: {
      name: f.name,
      description: f.description,
      parameters: { type: f.parameters.type, properties, required: f.parameters.required },
      strict: f.strict ?? false,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Row splitting with line numbers
// ---------------------------------------------------------------------------------------------

interface RawRow {
  line: number;
  text: string;
}

/** Split a top-level JSON array into element texts, tracking the line each element starts on. */
function splitJsonArray(text: string): RawRow[] | { error: string; line: number } {
  const rows: RawRow[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let line = 1;
  let start = -1;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\n") line++;
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (depth === 1 && start < 0 && !/[\s,\]]/.test(ch)) {
      start = i;
      startLine = line;
    }
    if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") {
      depth--;
      if (depth < 0) return { error: "unbalanced brackets", line };
    }
    if (depth === 1 && start >= 0 && (ch === "," || i === text.length - 1)) {
      rows.push({ line: startLine, text: text.slice(start, i) });
      start = -1;
    } else if (depth === 0 && ch === "]" && start >= 0) {
      rows.push({ line: startLine, text: text.slice(start, i) });
      start = -1;
    }
  }
  if (depth !== 0 || inString) return { error: "the JSON array is not closed", line };
  return rows;
}

function splitRows(text: string): RawRow[] | { error: string; line: number } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) return splitJsonArray(text);
  const rows: RawRow[] = [];
  text.split("\n").forEach((l, i) => {
    if (l.trim()) rows.push({ line: i + 1, text: l });
  });
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Normalisation
// ---------------------------------------------------------------------------------------------

type Cm2Message = z.infer<typeof messageSchema>;

function normaliseMessage(m: Cm2Message): ChatMessage {
  const role = m.role === "observation" ? "tool" : m.role;
  const out: ChatMessage = { role, content: m.content ?? "" };
  if (m.name) out.name = m.name;
  if (m.tool_calls?.length) {
    out.tool_calls = m.tool_calls.map((c) => ({
      id: c.id,
      type: "function" as const,
      function: { name: c.function.name, arguments: typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments) },
    }));
  }
  return out;
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "row"}: ${i.message}`).join("; ");
}

function normaliseRow(
  value: unknown,
  options: Cm2ImportOptions,
): { ok: true; instance: TaskSpec; promptTokens?: number } | { ok: false; message: string } {
  const parsed = cm2RowSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: issuesText(parsed.error) };
  const row = parsed.data;

  let toolsRaw: unknown = row.extra_info.tools;
  if (typeof toolsRaw === "string") {
    try {
      toolsRaw = JSON.parse(toolsRaw);
    } catch {
      return { ok: false, message: "extra_info.tools: not valid JSON" };
    }
  }
  const tools = z.array(cm2ToolSchema).safeParse(toolsRaw);
  if (!tools.success) return { ok: false, message: issuesText(tools.error).replace(/^/, "extra_info.tools.") };

  const messages = row.messages.map(normaliseMessage);
  if (!messages.some((m) => m.role === "user")) return { ok: false, message: "messages: needs a user message" };
  const reference = row.extra_info.messages?.map(normaliseMessage);
  const referenceUsers = (reference ?? messages).filter((m) => m.role === "user").map((m) => m.content);

  const checklistList = row.extra_info.interaction_kwargs.checklist_list.slice(0, options.maxChecklists ?? Infinity);
  const turns = checklistList[0].length;
  if (turns === 0) return { ok: false, message: "extra_info.interaction_kwargs.checklist_list.0: has no turns" };
  for (const [c, checklist] of checklistList.entries()) {
    if (checklist.length !== turns) return { ok: false, message: `extra_info.interaction_kwargs.checklist_list.${c}: has ${checklist.length} turns, expected ${turns}` };
  }
  if (referenceUsers.length < turns) {
    return { ok: false, message: `checklist has ${turns} turns but the reference conversation has only ${referenceUsers.length} user messages` };
  }
  const checklists: ChecklistItem[][][] = checklistList.map((checklist) =>
    checklist.map((items) =>
      items.map((it, k) => ({
        ...it,
        id: it.id === undefined ? `C${k}` : String(it.id),
        evidence: it.evidence as ChecklistItem["evidence"],
      })),
    ),
  );

  const id = `${options.idPrefix ?? "cm2"}-${row.extra_info.original_index}`;
  const promptTokens = options.promptLength?.count(
    row.messages.map((m) => ({ role: m.role, content: m.content ?? "" })),
    tools.data.length ? tools.data.map(verlToolSchema) : null,
  );
  return {
    ok: true,
    promptTokens,
    instance: {
      id,
      dataSource: row.data_source,
      messages,
      tools: tools.data as unknown as ToolSchema[],
      followUpUserMessages: referenceUsers.slice(1),
      checklists,
      // Few-shot pairs are not stored: the engine derives them from the reference when it loads the instance.
      reference,
    },
  };
}

/** Import CM2 rows from JSON-array or JSONL text. */
export function importCm2(text: string, options: Cm2ImportOptions = {}): Cm2ImportResult {
  // Editors on Windows save UTF-8 with a byte-order mark; it is not part of the first row.
  const split = splitRows(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!Array.isArray(split)) return { ok: false, errors: [{ line: split.line, row: -1, message: split.error }] };
  if (split.length === 0) return { ok: false, errors: [{ line: 1, row: -1, message: "no rows found" }] };
  const errors: Cm2ImportError[] = [];
  const filtered: Cm2FilteredRow[] = [];
  const instances: TaskSpec[] = [];
  const seen = new Set<string>();
  split.forEach((raw, row) => {
    let value: unknown;
    try {
      value = JSON.parse(raw.text);
    } catch (e) {
      errors.push({ line: raw.line, row, message: `not valid JSON: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    // JSON escapes can spell text PostgreSQL cannot store ("\u0000", a lone "\ud800").
    const unstorable = findUnstorableText(value);
    if (unstorable) {
      errors.push({ line: raw.line, row, message: describeUnstorable(unstorable) });
      return;
    }
    const r = normaliseRow(value, options);
    if (!r.ok) {
      errors.push({ line: raw.line, row, message: r.message });
      return;
    }
    if (seen.has(r.instance.id)) {
      errors.push({ line: raw.line, row, message: `duplicate original_index (${r.instance.id})` });
      return;
    }
    seen.add(r.instance.id);
    const limit = options.promptLength?.maxTokens;
    if (limit !== undefined && r.promptTokens !== undefined && r.promptTokens > limit) {
      filtered.push({ line: raw.line, row, id: r.instance.id, tokens: r.promptTokens, limit });
      return;
    }
    instances.push(r.instance);
  });
  if (errors.length > 0 && !options.skipInvalid) return { ok: false, errors };
  return { ok: true, instances, skipped: errors, filtered };
}
