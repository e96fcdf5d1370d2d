import { describe, expect, it } from "vitest";
import { isToolErrorContent, parseActOutput, parseRehearseOutput, sanitizeText, splitThinking, stripThink } from "./parsers";

describe("parseActOutput", () => {
  it("treats text without <tool_call> as a plain reply", () => {
    const r = parseActOutput("<think>easy</think>Hello there.");
    expect(r).toEqual({ kind: "reply", text: "<think>easy</think>Hello there." });
  });

  it("parses one call; content is the text before the first block", () => {
    const text = '<think>look up</think>\n<tool_call>\n{"name": " get_item ", "arguments": {"item_id": "A1"}}\n</tool_call>';
    const r = parseActOutput(text);
    expect(r.kind).toBe("tool_calls");
    if (r.kind !== "tool_calls") return;
    expect(r.content).toBe("<think>look up</think>");
    expect(r.calls).toEqual([{ name: "get_item", arguments: { item_id: "A1" }, argumentsJson: '{"item_id": "A1"}' }]);
  });

  it("parses several blocks and list bodies in order; parameters win over arguments", () => {
    const text =
      '\n<tool_call>\n[{"name":"a","arguments":{}},{"name":"b","parameters":{"x":1},"arguments":{"x":2}}]\n</tool_call>' +
      ' between \n<tool_call>\n{"name":"c","arguments":[1]}\n</tool_call>';
    const r = parseActOutput(text);
    if (r.kind !== "tool_calls") throw new Error("expected calls");
    expect(r.calls.map((c) => [c.name, c.argumentsJson])).toEqual([
      ["a", "{}"],
      ["b", '{"x": 1}'],
      ["c", "[1]"],
    ]);
    expect(r.content).toBe("");
  });

  it("NO_TOOL_CALL_FOUND when the tag has no newline-delimited block", () => {
    const r = parseActOutput('<tool_call>{"name":"a","arguments":{}}</tool_call>');
    expect(r.kind).toBe("error");
    if (r.kind !== "error") return;
    expect(r.code).toBe("NO_TOOL_CALL_FOUND");
    expect(typeof r.payload.error_tool_call).toBe("string");
  });

  it("JSON_DECODE_ERROR and one bad block invalidates every call", () => {
    const r = parseActOutput('\n<tool_call>\n{"name":"a","arguments":{}}\n</tool_call>\n<tool_call>\n{oops}\n</tool_call>');
    expect(r.kind === "error" && r.code).toBe("JSON_DECODE_ERROR");
    if (r.kind === "error") expect(r.payload.error_tool_call).toContain("{oops}");
  });

  it("NO_ARGUMENTS for missing or null arguments and for non-object actions", () => {
    expect(parseActOutput('\n<tool_call>\n{"name":"a"}\n</tool_call>')).toMatchObject({ kind: "error", code: "NO_ARGUMENTS" });
    expect(parseActOutput('\n<tool_call>\n{"name":"a","arguments":null}\n</tool_call>')).toMatchObject({ code: "NO_ARGUMENTS" });
    expect(parseActOutput("\n<tool_call>\n42\n</tool_call>")).toMatchObject({ code: "NO_ARGUMENTS" });
  });

  it("INVALID_TOOL_NAME carries raw_name and arguments", () => {
    const r = parseActOutput('\n<tool_call>\n{"name":"  ","arguments":{"k":1}}\n</tool_call>');
    expect(r).toMatchObject({ kind: "error", code: "INVALID_TOOL_NAME", payload: { raw_name: "  ", arguments: "{'k': 1}" } });
    const r2 = parseActOutput('\n<tool_call>\n{"arguments":{}}\n</tool_call>');
    expect(r2).toMatchObject({ code: "INVALID_TOOL_NAME", payload: { raw_name: "None" } });
  });

  it("NON_SERIALIZABLE_ARGUMENTS when re-serialising overflows", () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const r = parseActOutput(`\n<tool_call>\n{"name":"a","arguments":${deep}}\n</tool_call>`);
    // Either JSON.parse or JSON.stringify overflows depending on the engine's stack; both are coded errors.
    expect(r.kind === "tool_calls" || (r.kind === "error" && ["NON_SERIALIZABLE_ARGUMENTS", "JSON_DECODE_ERROR"].includes(r.code))).toBe(true);
  });
});

describe("parseRehearseOutput", () => {
  const wrap = (body: string) => `<think>hm</think>\n<execution_result>\n${body}\n</execution_result>`;

  it("returns json.dumps(ensure_ascii=False) of the first block", () => {
    const r = parseRehearseOutput(wrap('{ "price" : 3, "name": "Tea é" }'));
    expect(r).toEqual({ ok: true, value: { price: 3, name: "Tea é" }, content: '{"price": 3, "name": "Tea é"}' });
  });

  it("accepts arrays, even empty", () => {
    expect(parseRehearseOutput(wrap("[]"))).toMatchObject({ ok: true, content: "[]" });
  });

  it("reports each error code in order", () => {
    const code = (t: string) => {
      const r = parseRehearseOutput(t);
      return r.ok ? "ok" : r.code;
    };
    expect(code("")).toBe("EMPTY_SIMULATOR_OUTPUT");
    expect(code("<think>only thoughts</think>  \n")).toBe("EMPTY_SIMULATOR_OUTPUT");
    expect(code('{"a":1}')).toBe("NO_EXECUTION_RESULT_TAG_FOUND");
    expect(code('<execution_result>{"a":1}</execution_result>')).toBe("EXECUTION_RESULT_TAG_MALFORMED");
    expect(code(wrap("{a:1}"))).toBe("SIMULATOR_JSON_DECODE_ERROR");
    expect(code(wrap("{}"))).toBe("INVALID_EXECUTION_RESULT_TYPE");
    expect(code(wrap('"text"'))).toBe("INVALID_EXECUTION_RESULT_TYPE");
    expect(code(wrap("null"))).toBe("INVALID_EXECUTION_RESULT_TYPE");
  });

  it("error content is the nested error_tool_call JSON", () => {
    const r = parseRehearseOutput("plain words");
    expect(r.ok).toBe(false);
    const parsed = JSON.parse(r.content);
    expect(parsed.error_tool_call.code).toBe("NO_EXECUTION_RESULT_TAG_FOUND");
    expect(parsed.error_tool_call.details.raw_preview).toBe("plain words");
    expect(isToolErrorContent(r.content)).toBe(true);
  });

  it("a well-formed simulated error is ok at parse time and flagged by isToolErrorContent", () => {
    const r = parseRehearseOutput(wrap('{"error_tool_call":{"code":"INVALID_PARAMETERS","message":"bad"}}'));
    expect(r.ok).toBe(true);
    expect(isToolErrorContent(r.content)).toBe(true);
    expect(isToolErrorContent('{"ok":true}')).toBe(false);
    expect(isToolErrorContent('["error_tool_call"]')).toBe(false);
  });
});

describe("sanitizeText and helpers", () => {
  it("replaces unsafe characters but keeps valid astral characters", () => {
    expect(sanitizeText("a\u0000b\uD800c\uDC00d\uFDD0e\uFFFEf\u{1FFFF}g😀")).toBe("a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg😀");
    expect(sanitizeText("plain")).toBe("plain");
  });
  it("stripThink removes every think block; splitThinking keeps the no-think quirk", () => {
    expect(stripThink("<think>a</think>x<think>b</think>y")).toBe("xy");
    expect(splitThinking("<think> why </think> Hi")).toEqual({ thinking: "why", reply: "Hi" });
    expect(splitThinking("no tags")).toEqual({ thinking: "no tags", reply: "" });
  });
});
