/** visibleText: what a test-time review keeps of a reply — never an unclosed thought. stripThink keeps the reference's behaviour. */
import { describe, expect, it } from "vitest";
import { stripThink, visibleText } from "./parsers";

describe("visibleText", () => {
  it("removes closed think blocks like stripThink", () => {
    expect(visibleText("<think>\nplan\n</think>\n\nAnswer.")).toEqual({ text: "\n\nAnswer.", unclosed: false });
    expect(visibleText("No thinking.")).toEqual({ text: "No thinking.", unclosed: false });
  });
  it("drops an unclosed <think> and everything after it, and says so", () => {
    expect(visibleText("<think>\nhalf a thou")).toEqual({ text: "", unclosed: true });
    expect(visibleText("<think>a</think>Memo: x.<think>and then")).toEqual({ text: "Memo: x.", unclosed: true });
  });
  it("stripThink itself still keeps an unclosed block (the act and rehearse parsers follow the reference)", () => {
    expect(stripThink("Memo.<think>and then")).toBe("Memo.<think>and then");
  });
});
