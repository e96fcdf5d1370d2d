/**
 * Meta's Llama 3.1 Instruct chat template (templates/llama-3.1-instruct.ts) as plain string building,
 * the same treatment as qwen3.ts: HfChatRenderer uses it when the model's template IS that template
 * (compared as a string), and it reproduces what @huggingface/jinja renders from it byte for byte
 * (llama31.test.ts), for the context HfChatRenderer passes (no custom_tools, builtin_tools,
 * tools_in_user_message or date_string: their defaults apply). Inputs it does not model — non-string
 * content, anything but exactly one tool call per assistant call message, no user message to carry the
 * tools — return null and the interpreter renders them (its errors included).
 */
import { NotModelled, type TemplateContext, explicitTemplate, jinjaToJson } from "./jinja-values";
import { LLAMA31_INSTRUCT_TEMPLATE } from "./templates/llama-3.1-instruct";

export { LLAMA31_INSTRUCT_TEMPLATE };

const str = (v: unknown): string => {
  if (typeof v !== "string") throw new NotModelled();
  return v;
};

function render(context: TemplateContext): string {
  for (const key of ["custom_tools", "builtin_tools", "tools_in_user_message", "date_string"]) if (context[key] !== undefined) throw new NotModelled();
  let messages = context.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw new NotModelled();
  for (const m of messages) if (!m || typeof m !== "object" || typeof m.role !== "string") throw new NotModelled();
  const tools = context.tools;
  // `tools is not none` (an empty list is not none)
  const hasTools = tools !== null && tools !== undefined;
  if (hasTools && !Array.isArray(tools)) throw new NotModelled();
  let out = str(context.bos_token);
  let system = "";
  if (messages.length > 0 && messages[0].role === "system") {
    system = str(messages[0].content).trim();
    messages = messages.slice(1);
  }
  out += "<|start_header_id|>system<|end_header_id|>\n\n";
  if (hasTools) out += "Environment: ipython\n";
  out += "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n";
  out += system + "<|eot_id|>";
  if (hasTools) {
    // The tools go into the first remaining message, whatever its role.
    if (messages.length === 0) throw new NotModelled();
    const first = str(messages[0].content).trim();
    messages = messages.slice(1);
    out += "<|start_header_id|>user<|end_header_id|>\n\n";
    out += "Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.\n\n";
    out += 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.\n\n';
    for (const t of tools as unknown[]) out += jinjaToJson(t, 4) + "\n\n";
    out += first + "<|eot_id|>";
  }
  for (const m of messages) {
    const role = m.role as string;
    const isTool = role === "ipython" || role === "tool";
    if (!(isTool || "tool_calls" in m)) {
      out += "<|start_header_id|>" + role + "<|end_header_id|>\n\n" + str(m.content).trim() + "<|eot_id|>";
    } else if ("tool_calls" in m) {
      const calls = m.tool_calls;
      if (!Array.isArray(calls) || calls.length !== 1) throw new NotModelled();
      const call = calls[0] as { function?: { name?: unknown; arguments?: unknown } } | null;
      if (!call || typeof call !== "object" || !call.function || typeof call.function !== "object") throw new NotModelled();
      out += '<|start_header_id|>assistant<|end_header_id|>\n\n{"name": "' + str(call.function.name) + '", "parameters": ' + jinjaToJson(call.function.arguments) + "}<|eot_id|>";
    } else {
      // `content is mapping or content is iterable`: a string is iterable, so it is written as JSON too.
      const c = m.content;
      if (typeof c !== "string" && (c === null || typeof c !== "object")) throw new NotModelled();
      out += "<|start_header_id|>ipython<|end_header_id|>\n\n" + jinjaToJson(c) + "<|eot_id|>";
    }
  }
  if (context.add_generation_prompt === true) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
  else if (context.add_generation_prompt !== false && context.add_generation_prompt !== undefined) throw new NotModelled();
  return out;
}

/** The explicit renderer of Meta's Llama 3.1 Instruct template (HfChatRenderer picks it by the template string). */
export const llama31Template = explicitTemplate("llama3.1", LLAMA31_INSTRUCT_TEMPLATE, render);

/** Meta's Llama 3.1 Instruct template's text for this context, or null where the interpreter must render it. */
export const renderLlama31 = llama31Template.render;
