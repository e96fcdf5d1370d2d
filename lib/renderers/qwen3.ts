/**
 * Qwen3's official chat template as plain string building (tinker-cookbook's style: a small explicit
 * renderer per model family). HfChatRenderer uses it instead of the Jinja interpreter when the model's
 * template IS the official one (QWEN3_OFFICIAL_TEMPLATE, compared as a string); any other template
 * keeps the interpreter. The interpreter costs 0.8–2 ms per call, ~700 calls per paper-scale step
 * (bench/pack.ts); this costs microseconds.
 *
 * It reproduces what @huggingface/jinja renders from that template, byte for byte (qwen3.test.ts
 * checks it over generated conversations), including one place where that library differs from
 * Python's jinja2: `strip('\n')`, `lstrip('\n')` and `rstrip('\n')` ignore their argument there and
 * strip all whitespace (String.prototype.trim*). The product renders that way today, so this does too
 * (see `pyStrip` below).
 *
 * Anything the template would treat in a way this file does not model (non-string content, unusual
 * message or tool-call shapes, values that are not JSON) returns null: the caller then renders with the
 * interpreter, so such inputs behave exactly as before (errors included).
 */
import { NotModelled, type TemplateContext, explicitTemplate, jinjaToJson, truthy } from "./jinja-values";
import { QWEN3_OFFICIAL_TEMPLATE } from "./templates/qwen3";

export { QWEN3_OFFICIAL_TEMPLATE, jinjaToJson, type TemplateContext };

/** @huggingface/jinja's strip(chars) / lstrip / rstrip: the argument is ignored, all whitespace goes. */
const pyStrip = (s: string) => s.trim();
const pyLstrip = (s: string) => s.trimStart();
const pyRstrip = (s: string) => s.trimEnd();

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** One tool call as the template writes it. */
function toolCallText(call: unknown): string {
  if (!call || typeof call !== "object" || Array.isArray(call)) throw new NotModelled();
  let c = call as Record<string, unknown>;
  // `{%- if tool_call.function %}{%- set tool_call = tool_call.function %}`
  if (truthy(c.function)) {
    if (typeof c.function !== "object" || Array.isArray(c.function)) throw new NotModelled();
    c = c.function as Record<string, unknown>;
  }
  if (typeof c.name !== "string") throw new NotModelled();
  const args = c.arguments;
  return `<tool_call>\n{"name": "${c.name}", "arguments": ${typeof args === "string" ? args : jinjaToJson(args)}}\n</tool_call>`;
}

function render(context: TemplateContext): string {
  const messages = context.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw new NotModelled();
  for (const m of messages) {
    if (!m || typeof m !== "object" || typeof m.role !== "string" || !ROLES.has(m.role) || typeof m.content !== "string") throw new NotModelled();
    const r = m.reasoning_content;
    if (r !== undefined && r !== null && typeof r !== "string") throw new NotModelled();
    const calls = m.tool_calls;
    if (calls !== undefined && calls !== null && !Array.isArray(calls)) throw new NotModelled();
  }
  if (context.enable_thinking !== undefined && typeof context.enable_thinking !== "boolean") throw new NotModelled();
  const tools = context.tools;
  if (tools !== undefined && tools !== null && !Array.isArray(tools)) throw new NotModelled();
  const n = messages.length;
  const first = messages[0];
  let out = "";
  if (truthy(tools)) {
    out += "<|im_start|>system\n";
    if (first.role === "system") out += (first.content as string) + "\n\n";
    out += "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>";
    for (const tool of tools as unknown[]) out += "\n" + jinjaToJson(tool);
    out +=
      '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';
  } else if (first.role === "system") {
    out += "<|im_start|>system\n" + (first.content as string) + "<|im_end|>\n";
  }
  // The last user query: the latest user message that is not only a tool response.
  let lastQueryIndex = n - 1;
  for (let i = n - 1; i >= 0; i--) {
    const m = messages[i];
    const c = m.content as string;
    if (m.role === "user" && !(c.startsWith("<tool_response>") && c.endsWith("</tool_response>"))) {
      lastQueryIndex = i;
      break;
    }
  }
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    const role = m.role as string;
    if (role === "user" || (role === "system" && i > 0)) {
      out += "<|im_start|>" + role + "\n" + (m.content as string) + "<|im_end|>\n";
    } else if (role === "assistant") {
      let content = m.content as string;
      let reasoning = "";
      if (typeof m.reasoning_content === "string") reasoning = m.reasoning_content;
      else if (content.includes("</think>")) {
        const parts = content.split("</think>");
        reasoning = pyLstrip(pyRstrip(parts[0]).split("<think>").at(-1)!);
        content = pyLstrip(parts[parts.length - 1]);
      }
      if (i > lastQueryIndex && (i === n - 1 || reasoning.length > 0)) out += "<|im_start|>" + role + "\n<think>\n" + pyStrip(reasoning) + "\n</think>\n\n" + pyLstrip(content);
      else out += "<|im_start|>" + role + "\n" + content;
      const calls = m.tool_calls as unknown[] | null | undefined;
      if (truthy(calls)) {
        for (let k = 0; k < calls!.length; k++) {
          if (k > 0 || content.length > 0) out += "\n";
          out += toolCallText(calls![k]);
        }
      }
      out += "<|im_end|>\n";
    } else if (role === "tool") {
      if (i === 0 || messages[i - 1].role !== "tool") out += "<|im_start|>user";
      out += "\n<tool_response>\n" + (m.content as string) + "\n</tool_response>";
      if (i === n - 1 || messages[i + 1].role !== "tool") out += "<|im_end|>\n";
    }
  }
  if (context.add_generation_prompt === true) {
    out += "<|im_start|>assistant\n";
    if (context.enable_thinking === false) out += "<think>\n\n</think>\n\n";
  } else if (context.add_generation_prompt !== false && context.add_generation_prompt !== undefined) throw new NotModelled();
  return out;
}

/** The explicit renderer of Qwen3's official template (HfChatRenderer picks it by the template string). */
export const qwen3Template = explicitTemplate("qwen3", QWEN3_OFFICIAL_TEMPLATE, render);

/** The official Qwen3 template's text for this context, or null where the interpreter must render it. */
export const renderQwen3 = qwen3Template.render;
