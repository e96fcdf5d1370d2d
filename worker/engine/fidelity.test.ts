import { describe, expect, it } from "vitest";
import { compareResponses, optimalPairing, summarizeFidelity, textSimilarity } from "./fidelity";
import { parseRehearseOutput } from "./parsers";

// The worked examples of docs/FIDELITY.md, one test each.
describe("fidelity score", () => {
  it("identical values: exact and 1, whatever the key order or int/float spelling", () => {
    expect(compareResponses('{"a": 1, "b": [1, 2]}', '{"b": [1, 2.0], "a": 1}')).toEqual({
      score: 1,
      exact: true,
      errorAgreement: true,
      outcome: "values",
      divergences: [],
    });
  });

  it("objects: mean over the union of keys; missing and extra keys count 0 and are listed", () => {
    const f = compareResponses('{"a": 1, "b": 2, "c": 3}', '{"a": 1, "b": 5, "d": 4}');
    expect(f.exact).toBe(false);
    expect(f.score).toBeCloseTo(1 / 4, 12);
    expect(f.divergences).toEqual([
      { path: "$.b", rehearsed: "2", real: "5" },
      { path: "$.c", rehearsed: "3", real: null },
      { path: "$.d", rehearsed: null, real: "4" },
    ]);
  });

  it("nested objects average recursively", () => {
    const f = compareResponses('{"order": {"id": "W1", "total": 10}, "ok": true}', '{"order": {"id": "W1", "total": 12}, "ok": true}');
    expect(f.score).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(f.divergences).toEqual([{ path: "$.order.total", rehearsed: "10", real: "12" }]);
  });

  it("lists are matched by content with an optimal pairing: a permutation scores 1 but is not exact", () => {
    const f = compareResponses('[{"id": 2, "q": 1}, {"id": 1, "q": 5}]', '[{"id": 1, "q": 5}, {"id": 2, "q": 1}]');
    expect(f).toMatchObject({ score: 1, exact: false, divergences: [] });
    // One element wrong, one missing: (1 + 0.5) / 3.
    const g = compareResponses('[{"id": 1, "q": 5}, {"id": 2, "q": 9}]', '[{"id": 2, "q": 1}, {"id": 1, "q": 5}, {"id": 3, "q": 0}]');
    expect(g.score).toBeCloseTo(1.5 / 3, 12);
    expect(g.divergences).toEqual([
      { path: "$[].q", rehearsed: "9", real: "1" },
      { path: "$[]", rehearsed: null, real: '{"id":3,"q":0}' },
    ]);
  });

  it("the pairing is optimal, not greedy", () => {
    // Greedy would take the 0.9 cell first and leave 0.1: optimal takes 0.8 + 0.8.
    expect(optimalPairing([[0.9, 0.8], [0.8, 0.1]])).toEqual([[0, 1], [1, 0]]);
    expect(optimalPairing([[0.2], [0.7], [0.1]])).toEqual([[1, 0]]);
  });

  it("scalar and text results: a bare string equals the same string, and its one-member wrapper", () => {
    expect(compareResponses('{"user_id": "sara_doe_496"}', "sara_doe_496")).toMatchObject({ score: 1, exact: false, outcome: "values" });
    expect(compareResponses('["sara_doe_496"]', "sara_doe_496").score).toBe(1);
    expect(compareResponses('{"user_id": "sara_doe_497"}', "sara_doe_496")).toMatchObject({
      score: 0,
      divergences: [{ path: "$.user_id", rehearsed: '"sara_doe_497"', real: '"sara_doe_496"' }],
    });
    expect(compareResponses('{"result": 7.0}', "7.0").score).toBe(1);
    expect(compareResponses("sara_doe_496", "sara_doe_496")).toMatchObject({ score: 1, exact: true });
  });

  it("multi-word texts score by word overlap (F1); single words are all or nothing", () => {
    expect(textSimilarity("Transfer successful", "Transfer successful")).toBe(1);
    expect(textSimilarity("transfer completed successfully", "Transfer successful")).toBeCloseTo(0.4, 12);
    expect(textSimilarity("shipped", "delivered")).toBe(0);
    expect(compareResponses('{"note": "left at the door"}', '{"note": "left at the back door"}').score).toBeCloseTo(2 * (4 / 4) * (4 / 5) / (1 + 4 / 5), 12);
  });

  it("error vs error agrees in every environment's convention; error vs value does not", () => {
    const shopError = '{"error_tool_call": {"code": "OUT_OF_STOCK", "message": "only 2 left"}}';
    const tau2Error = "Error: Order #W1 not found";
    expect(compareResponses(shopError, '{"error_tool_call": {"code": "NOT_FOUND", "message": "no item"}}')).toMatchObject({ score: 1, exact: false, outcome: "both_errors", errorAgreement: true });
    expect(compareResponses("Error: order not found", tau2Error)).toMatchObject({ score: 1, outcome: "both_errors" });
    expect(compareResponses(shopError, tau2Error)).toMatchObject({ score: 1, outcome: "both_errors" });
    expect(compareResponses('{"error": "division by zero"}', tau2Error)).toMatchObject({ score: 1, outcome: "both_errors" });
    expect(compareResponses(tau2Error, tau2Error)).toMatchObject({ score: 1, exact: true });
    expect(compareResponses('{"status": "cancelled"}', tau2Error)).toMatchObject({
      score: 0,
      errorAgreement: false,
      outcome: "error_mismatch",
      divergences: [{ path: "$", rehearsed: '{"status":"cancelled"}', real: "error Error: Order #W1 not found" }],
    });
    // An environment's own error flag wins over detection.
    expect(compareResponses(shopError, "order is gone", { realError: true }).outcome).toBe("both_errors");
    expect(compareResponses('{"error": null, "v": 1}', '{"error": null, "v": 1}').outcome).toBe("values");
  });

  it("a rehearsal that broke its output format is invalid: 0, never error agreement", () => {
    const broken = parseRehearseOutput("no tags here").content;
    expect(compareResponses(broken, "Error: Order not found")).toMatchObject({
      score: 0,
      errorAgreement: false,
      outcome: "invalid_rehearsal",
      divergences: [{ path: "$", rehearsed: "invalid rehearsal (NO_EXECUTION_RESULT_TAG_FOUND)", real: "error Error: Order not found" }],
    });
    expect(compareResponses("Error when executing tool: simulator_rollout_failed: boom", '{"a": 1}').outcome).toBe("invalid_rehearsal");
  });

  it("summaries keep the exact-match rate beside the mean score", () => {
    const items = [compareResponses("[1, 2]", "[2, 1]"), compareResponses('{"a": 1}', '{"a": 2}'), compareResponses(parseRehearseOutput("").content, "{}")];
    expect(summarizeFidelity(items)).toEqual({ comparisons: 3, exactRate: 0, errorAgreementRate: 2 / 3, meanScore: 1 / 3, invalidRate: 1 / 3 });
    expect(summarizeFidelity([])).toBeNull();
  });

  it("divergence lists are bounded and deep or huge values stay cheap", () => {
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])));
    expect(compareResponses(many, "{}").divergences).toHaveLength(12);
    const deep = "[".repeat(3000) + "]".repeat(3000);
    expect(compareResponses(deep, deep).score).toBe(1);
    const long = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i })));
    const rev = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: 399 - i })));
    expect(compareResponses(long, rev).score).toBe(1);
  });
});
