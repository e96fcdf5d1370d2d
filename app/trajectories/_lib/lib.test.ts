import { describe, expect, it } from "vitest";
import { changedPaths, diffJsonText, diffValues } from "./json-diff";
import { prettyJson, splitOutput } from "./act-text";
import { filterQuery, parseFilters, withFilters } from "./filters";

describe("diffValues", () => {
  it("reports equal values as all-same rows", () => {
    const d = diffValues({ a: 1, b: [1, 2] }, { a: 1, b: [1, 2] });
    expect(d.summary).toEqual({ same: 3, changed: 0, added: 0, removed: 0 });
    expect(d.rows.every((r) => r.kind === "same" && r.left === r.right)).toBe(true);
  });

  it("aligns changed, added and removed keys with their paths", () => {
    const d = diffValues({ status: "pending", price: 210.52, gone: true }, { status: "pending", price: 239.99, extra: { id: 7 } });
    expect(d.summary).toEqual({ same: 1, changed: 1, added: 1, removed: 1 });
    const byPath = Object.fromEntries(d.rows.filter((r) => !r.container).map((r) => [r.path, r]));
    expect(byPath["price"]).toMatchObject({ kind: "changed", left: '"price": 210.52', right: '"price": 239.99' });
    expect(byPath["gone"]).toMatchObject({ kind: "removed", left: '"gone": true', right: null });
    expect(byPath["extra.id"]).toMatchObject({ kind: "added", left: null, right: '"id": 7', depth: 2 });
    expect(changedPaths(d)).toEqual(["price", "gone", "extra.id"]);
    // the root object is marked changed, its unchanged leaf stays same
    expect(d.rows[0]).toMatchObject({ kind: "changed", container: true, left: "{" });
    expect(byPath["status"]!.kind).toBe("same");
  });

  it("compares arrays by position and shows extra elements as added", () => {
    const d = diffValues({ items: [1, 2] }, { items: [1, 3, 4] });
    expect(d.rows.filter((r) => !r.container).map((r) => [r.path, r.kind])).toEqual([
      ["items.0", "same"],
      ["items.1", "changed"],
      ["items.2", "added"],
    ]);
  });

  it("shows a type change of a container as a removed subtree and an added subtree", () => {
    const d = diffValues({ v: { a: 1 } }, { v: "x" });
    expect(d.summary).toMatchObject({ removed: 1, added: 1, changed: 0 });
    const kinds = d.rows.slice(1, -1).map((r) => r.kind);
    expect(kinds).toEqual(["removed", "removed", "removed", "added"]);
  });

  it("stays bounded on very deep input", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { d: deep };
    const d = diffValues(deep, deep);
    expect(d.rows.length).toBeLessThan(200);
  });
});

describe("diffJsonText", () => {
  it("parses both sides and diffs the structures", () => {
    const d = diffJsonText('{"a":1,"b":{"c":2}}', '{"b":{"c":3},"a":1}');
    expect(d.parsed).toEqual({ left: true, right: true });
    expect(changedPaths(d)).toEqual(["b.c"]);
  });

  it("compares non-JSON text as one string value", () => {
    const d = diffJsonText("not json", '{"ok":true}');
    expect(d.parsed).toEqual({ left: false, right: true });
    expect(d.summary.removed + d.summary.added).toBe(2);
    expect(diffJsonText("same text", "same text").summary).toEqual({ same: 1, changed: 0, added: 0, removed: 0 });
  });
});

describe("splitOutput", () => {
  it("splits thinking, reply text and tool calls", () => {
    const s = splitOutput('<think>plan it</think>Let me check.\n<tool_call>\n{"name":"get","arguments":{"id":1}}\n</tool_call>');
    expect(s).toEqual([
      { kind: "think", text: "plan it" },
      { kind: "text", text: "Let me check." },
      { kind: "tool_call", text: '{"name":"get","arguments":{"id":1}}', json: { name: "get", arguments: { id: 1 } } },
    ]);
  });

  it("keeps malformed blocks and unclosed tags as what they are", () => {
    const s = splitOutput('Sure\n<tool_call>\n{"name": broken\n</tool_call> <think>never closed');
    expect(s[1]).toMatchObject({ kind: "tool_call", json: undefined });
    expect(s[2]).toEqual({ kind: "text", text: "<think>never closed" });
    expect(splitOutput("<script>alert(1)</script> hi")).toEqual([{ kind: "text", text: "<script>alert(1)</script> hi" }]);
  });

  it("extracts execution results", () => {
    const s = splitOutput('<think>x</think>\n<execution_result>\n{"a":1}\n</execution_result>');
    expect(s[1]).toEqual({ kind: "execution_result", text: '{"a":1}', json: { a: 1 } });
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson("plain")).toBe("plain");
  });
});

describe("filters in the URL", () => {
  it("round-trips valid filters and drops malformed ones", () => {
    const q = filterQuery({ stepMin: 3, rewardMax: 0.5, terminationReason: "act_parse_error:JSON_DECODE_ERROR", phase: "eval" });
    expect(parseFilters(new URLSearchParams(q))).toEqual({ stepMin: 3, rewardMax: 0.5, terminationReason: "act_parse_error:JSON_DECODE_ERROR", phase: "eval" });
    expect(parseFilters(new URLSearchParams("stepMin=-1&stepMax=2.5&rewardMin=abc&outcome=maybe&phase=eval&instance=&sort=random"))).toEqual({ phase: "eval" });
    expect(parseFilters(new URLSearchParams("sort=reward_asc"))).toEqual({ sort: "reward_asc" });
  });

  it("keeps unrelated params when writing filters", () => {
    const next = withFilters("group=x&stepMin=1", { stepMin: undefined, outcome: "success" });
    expect(next.get("group")).toBe("x");
    expect(next.get("stepMin")).toBeNull();
    expect(next.get("outcome")).toBe("success");
  });
});
