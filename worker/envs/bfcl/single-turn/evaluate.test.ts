import { describe, expect, it } from "vitest";
import type { SingleTurnEntry } from "./data";
import { decodeFunctionCalls, decodeToolCallBlocks, stripReasoning } from "./decode";
import { categoryScore, evaluateAstEntry, evaluateRelevanceEntry } from "./evaluate";
import { PyDict, pyJsonLoads, type PyValue } from "./values";

const fn = {
  name: "math.hypot",
  parameters: { type: "dict", properties: { x: { type: "integer" }, y: { type: "integer" }, z: { type: "integer" } }, required: ["x", "y"] },
};
const entry = (category: SingleTurnEntry["category"], answer?: string): SingleTurnEntry => ({
  id: `${category}_0`,
  category,
  language: "python",
  question: [[{ role: "user", content: "?" }]],
  functions: [fn],
  possibleAnswer: answer === undefined ? undefined : (pyJsonLoads(answer) as PyValue[]),
});
const simple = entry("simple_python", '[{"math.hypot": {"x": [4], "y": [5], "z": ["", 0]}}]');
const block = (json: string) => `<tool_call>\n${json}\n</tool_call>`;

describe("decoding replies", () => {
  it("takes hermes tool-call blocks after the reasoning, skipping blocks that are not JSON", () => {
    const text = `<think>\n${block('{"name": "ignored", "arguments": {}}')}\n</think>\n\n${block("not json")}\n${block('{"name": "math.hypot", "arguments": {"x": 4, "y": 5.0}}')}`;
    const d = decodeToolCallBlocks(text);
    expect(d.ok).toBe(true);
    const calls = (d as { value: PyDict[] }).value;
    expect(calls).toHaveLength(1);
    const args = calls[0].get("math.hypot") as PyDict;
    expect(typeof args.get("x")).toBe("bigint");
    expect(typeof args.get("y")).toBe("number");
    expect(stripReasoning("<think>a</think>\n\nb")).toBe("b");
  });

  it("fails like upstream on blocks that are not calls", () => {
    expect(decodeToolCallBlocks(block("[1, 2]"))).toEqual({ ok: false, error: `Model did not return a list of function calls: ${block("[1, 2]")}` });
    expect(decodeToolCallBlocks(block('{"arguments": {}}'))).toEqual({ ok: false, error: "'name'" });
    expect(decodeToolCallBlocks(block('{"name": "f", "arguments": "{}"}'))).toEqual({ ok: false, error: "'str' object has no attribute 'items'" });
  });

  it("decodes API tool calls with json.loads and treats a text reply as undecodable", () => {
    expect(decodeFunctionCalls("I cannot help.")).toEqual({ ok: false, error: "'str' object has no attribute 'keys'" });
    expect(decodeFunctionCalls("")).toEqual({ ok: true, value: [] });
    expect(decodeFunctionCalls([{ name: "f", arguments: "{bad" }]).ok).toBe(false);
  });
});

describe("evaluating an entry", () => {
  it("passes the ground truth and names upstream's error types otherwise", () => {
    expect(evaluateAstEntry(simple, decodeToolCallBlocks(block('{"name": "math.hypot", "arguments": {"x": 4, "y": 5}}')))).toEqual({ id: "simple_python_0", valid: true });
    expect(evaluateAstEntry(simple, decodeToolCallBlocks("no call")).errorType).toBe("simple_function_checker:wrong_count");
    expect(evaluateAstEntry(simple, decodeToolCallBlocks(block('{"name": "math.hypot", "arguments": {"x": "4", "y": 5}}')))).toMatchObject({
      valid: false,
      errorType: "type_error:simple",
      error: ["Incorrect type for parameter 'x'. Expected type integer, got str. Parameter value: '4'."],
    });
    expect(evaluateAstEntry(simple, { ok: false, error: "boom" })).toMatchObject({ errorType: "ast_decoder:decoder_failed", error: ["Invalid syntax. Failed to decode AST. boom"] });
    expect(evaluateAstEntry(simple, { ok: true, value: [PyDict.of([["a", 1n]])] }).errorType).toBe("ast_decoder:decoder_wrong_output_format");
  });

  it("reports an input that crashes upstream's checker as checker:crash instead of a score", () => {
    const broken = entry("parallel", '[{"other": {"x": [4]}}]');
    expect(evaluateAstEntry(broken, decodeToolCallBlocks(block('{"name": "other", "arguments": {"x": 4}}'))).errorType).toBe("checker:crash");
  });

  it("scores irrelevance and relevance by whether a call was decoded", () => {
    const irrelevance = entry("irrelevance");
    const relevance = entry("live_relevance");
    const call = decodeToolCallBlocks(block('{"name": "math.hypot", "arguments": {}}'));
    const none = decodeToolCallBlocks("Sorry, no tool fits.");
    expect(evaluateRelevanceEntry(irrelevance, none).valid).toBe(true);
    expect(evaluateRelevanceEntry(irrelevance, call)).toMatchObject({ valid: false, errorType: "irrelevance_error:decoder_success" });
    expect(evaluateRelevanceEntry(relevance, call).valid).toBe(true);
    expect(evaluateRelevanceEntry(relevance, none)).toMatchObject({ valid: false, errorType: "relevance_error:decoder_failed", error: ["Invalid syntax. Failed to decode AST when it should have. None"] });
    expect(evaluateRelevanceEntry(relevance, { ok: true, value: [new PyDict()] }).valid).toBe(false);
    expect(categoryScore([{ id: "a", valid: true }, { id: "b", valid: false }])).toEqual({ accuracy: 0.5, correctCount: 1, totalCount: 2 });
  });
});
