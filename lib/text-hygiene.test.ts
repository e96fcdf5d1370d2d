import { describe, expect, it } from "vitest";
import { describeUnstorable, findUnstorableText, textProblem } from "./text-hygiene";

describe("text PostgreSQL cannot store", () => {
  it("finds NUL characters and unpaired surrogates, accepts paired ones", () => {
    expect(textProblem("a\u0000b")).toMatch(/NUL/);
    expect(textProblem("x\uD800")).toMatch(/unpaired UTF-16 surrogate/);
    expect(textProblem("\uDC00x")).toMatch(/unpaired/);
    expect(textProblem("\uDC00\uD800")).toMatch(/unpaired/); // low before high is not a pair
    expect(textProblem("emoji 😀 ok")).toBeNull();
    expect(textProblem("plain")).toBeNull();
  });

  it("names the path of the first bad field, keys included", () => {
    expect(findUnstorableText({ name: "ok", tags: ["a", "b\u0000"] })).toEqual({ path: "tags.1", problem: expect.stringMatching(/NUL/) });
    expect(findUnstorableText({ config: { rollout: { note: "\uD83D" } } })?.path).toBe("config.rollout.note");
    expect(findUnstorableText({ config: { "k\u0000": 1 } })).toEqual({ path: "config.k\\u0000", problem: expect.stringMatching(/^has a key that contains a NUL/) });
    expect(findUnstorableText("top\u0000")?.path).toBe("");
    expect(findUnstorableText({ a: [1, null, true, new Date(0)], b: "fine" })).toBeNull();
  });

  it("reads as one line", () => {
    expect(describeUnstorable({ path: "name", problem: "contains a NUL character (\\u0000), which cannot be stored" })).toBe(
      "name: contains a NUL character (\\u0000), which cannot be stored",
    );
    expect(describeUnstorable({ path: "", problem: "x" })).toBe("input: x");
  });

  it("survives cycles", () => {
    const a: Record<string, unknown> = { s: "ok" };
    a.self = a;
    expect(findUnstorableText(a)).toBeNull();
  });
});
