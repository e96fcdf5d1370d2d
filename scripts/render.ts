/**
 * npm run -s render -- --model <model name or tokenizer dir> --cases FILE
 *
 * FILE is a JSON array of { id, messages, tools?, add_generation_prompt?, enable_thinking? } with
 * OpenAI-style messages. Prints one JSON line per case: { id, text, ids } where text is exactly what
 * HF apply_chat_template(..., tokenize=False) gives and ids its tokenisation. Exits 1 with a message
 * naming the case and field on bad input, 2 on bad usage.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseRenderCases, rendererForModelOrDir } from "../lib/renderers";

function fail(code: number, message: string): never {
  process.stderr.write(`render: ${message}\n`);
  process.exit(code);
}

const { values } = (() => {
  try {
    return parseArgs({ options: { model: { type: "string" }, cases: { type: "string" }, help: { type: "boolean" } }, strict: true });
  } catch (e) {
    return fail(2, e instanceof Error ? e.message : String(e));
  }
})();
if (values.help || !values.model || !values.cases) fail(2, "usage: npm run -s render -- --model <model name or tokenizer dir> --cases FILE");

let raw: unknown;
try {
  raw = JSON.parse(readFileSync(values.cases!, "utf8"));
} catch (e) {
  fail(1, `${values.cases}: ${e instanceof Error ? e.message : String(e)}`);
}
try {
  const cases = parseRenderCases(raw);
  const renderer = rendererForModelOrDir(values.model!);
  for (const c of cases) {
    const options = {
      tools: c.tools,
      addGenerationPrompt: c.add_generation_prompt ?? false,
      ...(c.enable_thinking !== undefined ? { enableThinking: c.enable_thinking } : {}),
    };
    let text: string;
    try {
      text = renderer.renderText(c.messages, options);
    } catch (e) {
      throw new Error(`case "${c.id}": ${e instanceof Error ? e.message : String(e)}`);
    }
    process.stdout.write(`${JSON.stringify({ id: c.id, text, ids: renderer.renderPrompt(c.messages, options) })}\n`);
  }
} catch (e) {
  fail(1, e instanceof Error ? e.message : String(e));
}
