/** The sliding-window judge's prompts and verdicts against upstream's TrajectoryEvaluator on the same cases (scripts/vitabench/oracle.py). */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runJudgeCase } from "./cli/judge-prompts";
import { applyVerdicts, finalScore, initialRubrics, JudgeReplyError, parseJudgeReply, slidingWindows } from "./evaluator";
import { dataDir as sharedDataDir } from "../../../lib/tau2/tasks";

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/vitabench/${name}`, import.meta.url), "utf8").split("\n").filter((l) => l.trim());
const shared = existsSync(`${sharedDataDir()}/vitabench/delivery/tasks.json`);

describe("VitaBench judge", () => {
  it.skipIf(!shared)("renders every window's system and user prompt and the final verdict as upstream", async () => {
    const golden = fixture("judge.golden.jsonl").map((l) => JSON.parse(l));
    const got = (await Promise.all(fixture("judge.cases.jsonl").map((c) => runJudgeCase(c)))).flat().map((l) => JSON.parse(l));
    expect(got).toEqual(golden);
  });
  it.skipIf(!shared)("reads malformed replies as upstream (json_repair), keeps states on falsy ones, and fails where upstream raises", async () => {
    const golden = fixture("judge-repair.golden.jsonl").map((l) => JSON.parse(l));
    const got = (await Promise.all(fixture("judge-repair.cases.jsonl").map((c) => runJudgeCase(c)))).flat().map((l) => JSON.parse(l));
    expect(got).toEqual(golden);
  });
  it("windows of 10 overlapping by 2, one window up to 10 messages", () => {
    const n = (k: number) => slidingWindows([...Array(k).keys()]).map((w) => [w[0], w[w.length - 1]]);
    expect(n(10)).toEqual([[0, 9]]);
    expect(n(11)).toEqual([[0, 9], [8, 10]]);
    expect(n(26)).toEqual([[0, 9], [8, 17], [16, 25]]);
  });
  it("de-duplicates rubrics (state rubrics first) and needs every rubric met", () => {
    const s = initialRubrics({ stateRubrics: [["a", "b"], ["b"]], overallRubrics: ["a", "c"] });
    expect([...s.values()].map((r) => r.rubric)).toEqual(["a", "b", "c"]);
    const reply = '[{"rubric_idx": "rubric_0", "meetExpectation": true}, {"rubric_idx": "rubric_2", "meetExpectation": true}, {"rubric_idx": "rubric_9", "meetExpectation": true}]';
    const after = applyVerdicts(s, parseJudgeReply(reply, 1), 1, reply);
    expect(finalScore(after)).toEqual({ reward: 0, partial: 2 / 3, met: [true, false, true] });
  });
  it("a reply it cannot read is a judge failure with the raw reply kept", () => {
    expect(() => parseJudgeReply("the agent did fine", 2)).toThrow(JudgeReplyError);
    const reply = '{"rubric_idx": "rubric_0"}';
    let thrown: unknown;
    try {
      applyVerdicts(initialRubrics({ stateRubrics: [["a"]], overallRubrics: null }), parseJudgeReply(reply, 3), 3, reply);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(JudgeReplyError);
    expect((thrown as JudgeReplyError).raw).toBe(reply);
    expect((thrown as JudgeReplyError).pyType).toBe("AttributeError");
  });
});
