/**
 * Zod schemas for OpenAI-style messages and tools as the renderers accept them, and for the render
 * command's case files. Unknown message fields are refused: a template would silently ignore them.
 */
import { z } from "zod";

const toolCallSchema = z
  .object({
    id: z.string().optional(),
    type: z.literal("function").optional(),
    function: z
      .object({
        name: z.string().min(1, "a tool call needs a function name"),
        arguments: z.union([z.string(), z.record(z.unknown())], { errorMap: () => ({ message: "arguments must be a JSON string or an object" }) }),
      })
      .strict(),
  })
  .strict();

export const renderMessageSchema = z
  .object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.string().nullable(),
    name: z.string().optional(),
    tool_call_id: z.string().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    reasoning_content: z.string().nullable().optional(),
  })
  .strict();

export const renderToolSchema = z
  .object({
    type: z.literal("function"),
    function: z
      .object({
        name: z.string().min(1),
        description: z.string().optional(),
        parameters: z.record(z.unknown()).optional(),
      })
      .passthrough(),
  })
  .strict();

export const renderCaseSchema = z
  .object({
    id: z.string().min(1, "id must be a non-empty string"),
    messages: z.array(renderMessageSchema).min(1, "messages must hold at least one message"),
    tools: z.array(renderToolSchema).optional(),
    add_generation_prompt: z.boolean().optional(),
    enable_thinking: z.boolean().optional(),
  })
  .strict();
export type RenderCase = z.infer<typeof renderCaseSchema>;


/** Validate a case file's JSON: every error names the case (by id or index) and the field. */
export function parseRenderCases(value: unknown): RenderCase[] {
  if (!Array.isArray(value)) throw new Error("the cases file must hold a JSON array of cases");
  const errors: string[] = [];
  const cases: RenderCase[] = [];
  const seen = new Set<string>();
  value.forEach((raw, i) => {
    const label = raw && typeof raw === "object" && typeof (raw as { id?: unknown }).id === "string" ? `case "${(raw as { id: string }).id}"` : `case #${i}`;
    const parsed = renderCaseSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) errors.push(`${label}: ${issue.path.join(".") || "(case)"}: ${issue.message}`);
      return;
    }
    if (seen.has(parsed.data.id)) errors.push(`${label}: id: duplicate id`);
    seen.add(parsed.data.id);
    cases.push(parsed.data);
  });
  if (errors.length) throw new Error(errors.join("\n"));
  return cases;
}
