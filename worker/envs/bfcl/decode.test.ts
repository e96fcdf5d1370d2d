import { describe, expect, it } from "vitest";
import { BfclDecodeError, callFromToolCall, decodePromptingCalls } from "./decode";

describe("function-calling tool calls", () => {
  it("become name(k=repr(v),…) with json.loads types and key order", () => {
    expect(callFromToolCall("cd", '{"folder": "document"}')).toBe("cd(folder='document')");
    expect(callFromToolCall("place_order", '{"price": 10.0, "amount": 3, "symbol": "it\'s", "flag": true, "x": null}')).toBe(
      `place_order(price=10.0,amount=3,symbol="it's",flag=True,x=None)`,
    );
    expect(callFromToolCall("lockDoors", '{"door": ["driver"], "opts": {"b": 1, "a": [1.5e-7]}}')).toBe("lockDoors(door=['driver'],opts={'b': 1, 'a': [1.5e-07]})");
    expect(callFromToolCall("ls", "{}")).toBe("ls()");
  });
  it("fail to decode when the arguments are not a JSON object", () => {
    expect(() => callFromToolCall("cd", "[1]")).toThrow(BfclDecodeError);
    expect(() => callFromToolCall("cd", "{oops")).toThrow(BfclDecodeError);
  });
});

describe("prompting output", () => {
  it("keeps keyword arguments as upstream resolves them and drops positional ones", () => {
    expect(decodePromptingCalls("[cd(folder='docs'), ls(a=True)]")).toEqual(["cd(folder='docs')", "ls(a=True)"]);
    expect(decodePromptingCalls("```\nsort('report.txt')\n```")).toEqual(["sort()"]);
    expect(decodePromptingCalls("f(x=-5, y=+2, z=1+2*3, n=abc, t=(1, 'a'), d={'k': [1]})")).toEqual(["f(x=-5, y=-2, z=7, n='abc', t=(1, 'a'), d={'k': [1]})"]);
    expect(decodePromptingCalls("f(x=g(1, 2), y=h(a=1))")).toEqual(["f(x='g(1, 2)', y=h(a=1))"]);
    expect(decodePromptingCalls("f(x=...)")).toEqual(["f(x='...')"]);
  });
  it("fails where upstream's decoder raises", () => {
    expect(() => decodePromptingCalls("I will list the files.")).toThrow(BfclDecodeError);
    expect(() => decodePromptingCalls("[cd(folder='docs'), 5]")).toThrow(BfclDecodeError);
    expect(() => decodePromptingCalls("f(x={1, 2})")).toThrow("Unsupported AST type: set");
  });
});
