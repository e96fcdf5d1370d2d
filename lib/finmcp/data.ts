/**
 * FinMCP-Bench's data as upstream lays it out (shared docs finmcp.md): a sample file is one JSON array of samples
 * (`scenery`, `diff_level`, `tool_list`, `question`, `task`, `messages` — the gold trajectory in OpenAI chat form;
 * extra keys are ignored), and the tool schemas are a separate OpenAI `tools` file (upstream's MCP_SCHEMA_PATH; with a
 * live MCP server they come from the server). Validated here; every error names the file and the JSON path. Pure of
 * the database; read by the worker's environment and the launch check.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { dataDir } from "../tau2/tasks";
import { FINMCP_DEFAULT_FOLDER, FINMCP_DEFAULT_SCHEMA } from "./datasets";

export class FinmcpDataError extends Error {}

const callSchema = z
  .object({
    id: z.string().min(1, "a call needs its id (the tool message answering it names it)"),
    type: z.string().optional(),
    index: z.number().int().optional(),
    function: z.object({ name: z.string().min(1), arguments: z.string() }).passthrough(),
  })
  .passthrough();

const messageSchema = z
  .object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.string().nullable().optional(),
    tool_calls: z.array(callSchema).nullable().optional(),
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
  })
  .passthrough();

export const finmcpSampleSchema = z
  .object({
    // What upstream's scorer groups by; a sample without them still runs (the scorer skips it, as upstream's does).
    scenery: z.string().optional(),
    diff_level: z.object({ level: z.unknown().optional() }).passthrough().optional(),
    // Upstream's scorer stops on a null task (None.replace): refused here, before a run spends its calls.
    task: z.string({ invalid_type_error: "task must be a string (upstream's evaluation stops on a null task)" }).optional(),
    question: z.string().optional(),
    messages: z.array(messageSchema).min(1),
  })
  .passthrough()
  .superRefine((s, ctx) => {
    if (!s.messages.some((m) => m.role === "user")) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["messages"], message: "a sample needs at least one user message (a turn starts at each)" });
  });

export type FinmcpSample = z.infer<typeof finmcpSampleSchema>;
export type FinmcpMessage = z.infer<typeof messageSchema>;

const toolSchema = z
  .object({
    type: z.literal("function"),
    function: z.object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.unknown()).optional() }).passthrough(),
  })
  .passthrough();
export type FinmcpToolSchema = z.infer<typeof toolSchema>;

const where = (issue: z.ZodIssue) => issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("");

/** The folder a run reads (`$ENVACE_DATA_DIR/<folder>`). */
export function finmcpFolder(folder = FINMCP_DEFAULT_FOLDER): string {
  return join(dataDir(), folder);
}

export interface FinmcpFiles {
  folder: string;
  samples: string;
  schema: string;
}

export function finmcpFiles(file: string, opts: { folder?: string; schema?: string } = {}): FinmcpFiles {
  const folder = finmcpFolder(opts.folder);
  return { folder, samples: join(folder, `${file}.json`), schema: join(folder, opts.schema ?? FINMCP_DEFAULT_SCHEMA) };
}

function readJson(path: string, what: string): unknown {
  if (!existsSync(path)) throw new FinmcpDataError(`${path}: no such file (${what})`);
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new FinmcpDataError(`${path}: not valid JSON (${(e as Error).message})`);
  }
}

/** The samples of a sample file, validated (the first bad sample named by its position and path). */
export function loadFinmcpSamples(path: string): FinmcpSample[] {
  const raw = readJson(path, "a FinMCP-Bench sample file: supply upstream's file here");
  if (!Array.isArray(raw)) throw new FinmcpDataError(`${path}: a JSON array of samples is expected`);
  return raw.map((s, i) => {
    const parsed = finmcpSampleSchema.safeParse(s);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new FinmcpDataError(`${path}: [${i}]${where(issue)}: ${issue.message}`);
    }
    return parsed.data;
  });
}

/** An OpenAI `tools` file (upstream's MCP_SCHEMA_PATH), validated; the names must be distinct. */
export function loadFinmcpToolSchema(path: string): FinmcpToolSchema[] {
  const raw = readJson(path, "the tool schemas: upstream's MCP_SCHEMA file, an OpenAI tools array");
  if (!Array.isArray(raw)) throw new FinmcpDataError(`${path}: a JSON array of OpenAI tools is expected`);
  const tools = raw.map((t, i) => {
    const parsed = toolSchema.safeParse(t);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new FinmcpDataError(`${path}: [${i}]${where(issue)}: ${issue.message}`);
    }
    return parsed.data;
  });
  const seen = new Set<string>();
  for (const [i, t] of tools.entries()) {
    if (seen.has(t.function.name)) throw new FinmcpDataError(`${path}: [${i}].function.name: "${t.function.name}" appears twice`);
    seen.add(t.function.name);
  }
  return tools;
}

/** Indices of the user messages: upstream runs one turn from each. */
export const userTurns = (s: FinmcpSample): number[] => s.messages.flatMap((m, i) => (m.role === "user" ? [i] : []));

/** Gold tool names of a sample, in order (what the scorer compares against). */
export const goldToolNames = (s: FinmcpSample): string[] => s.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));

/** `data.instanceIds` of a FinMCP run are 0-based sample positions ("3"); the samples they name, each checked. */
export function chooseFinmcpSamples(count: number, instanceIds: readonly string[], file: string): number[] {
  if (instanceIds.length === 0) return Array.from({ length: count }, (_, i) => i);
  const bad = instanceIds.filter((id) => !/^\d+$/.test(id) || Number(id) >= count);
  if (bad.length) throw new FinmcpDataError(`data.instanceIds: ${bad.slice(0, 5).map((b) => `"${b}"`).join(", ")} ${bad.length === 1 ? "is" : "are"} not a sample position of ${file} (0 to ${count - 1})`);
  return [...new Set(instanceIds.map(Number))];
}
