import { describe, expect, it } from "vitest";
import { parseGridArg, parseSeedsArg, studyExitCode, studyProgress, tableLines } from "./studies";

describe("envace studies arguments", () => {
  it("reads --grid as a setting and its values (JSON where they parse, else text)", () => {
    expect(parseGridArg("rollout.paradigm=rehearse,environment")).toEqual({ setting: "rollout.paradigm", values: ["rehearse", "environment"] });
    expect(parseGridArg("optim.lr=1e-5, 3e-5")).toEqual({ setting: "optim.lr", values: [1e-5, 3e-5] });
    expect(parseGridArg("policy.model=Qwen/Qwen3-1.7B,Qwen/Qwen3-8B").values).toEqual(["Qwen/Qwen3-1.7B", "Qwen/Qwen3-8B"]);
    expect(parseGridArg('data.instanceIds=[["a"],["b","c"]]').values).toEqual([["a"], ["b", "c"]]);
    expect(parseGridArg('reward.judge=[{"node":"j","model":"a"},{"node":"j","model":"b"}]').values).toHaveLength(2);
  });

  it("refuses a --grid that names no setting, the seed, or no values", () => {
    expect(() => parseGridArg("rollout.paradigm")).toThrow("--grid rollout.paradigm: expected setting=value,value…");
    expect(() => parseGridArg("rollout.paradigms=rehearse")).toThrow("--grid rollout.paradigms: no such run setting (did you mean rollout.paradigm?)");
    expect(() => parseGridArg("data.seed=1,2")).toThrow("--grid data.seed: seeds are the study's own axis: give seeds instead");
    expect(() => parseGridArg("optim.lr= ,")).toThrow("--grid optim.lr: give at least one value");
  });

  it("reads --seeds as a count or a list", () => {
    expect(parseSeedsArg("4")).toBe(4);
    expect(parseSeedsArg("0,3,7")).toEqual([0, 3, 7]);
    expect(() => parseSeedsArg("four")).toThrow("--seeds four: expected a count (4) or a comma list of seeds (0,3,7)");
  });
});

describe("envace studies views", () => {
  const runs = (...statuses: string[]) => statuses.map((status, i) => ({ id: String(i), name: `r${i}`, status, progressStep: 0, totalSteps: 2 }));

  it("says how far a study is and how its watch ends", () => {
    expect(studyProgress(runs("succeeded", "running", "queued", "queued"))).toBe("1 of 4 runs finished (1 succeeded), 1 running, 2 queued");
    expect(studyExitCode(runs("succeeded", "succeeded"))).toBe(0);
    expect(studyExitCode(runs("succeeded", "cancelled"))).toBe(3);
    expect(studyExitCode(runs("failed", "cancelled"))).toBe(2);
  });

  it("prints the table as mean ± std with n per group", () => {
    const stat = (mean: number, std: number, n: number) => ({ mean, std, n });
    const lines = tableLines({
      step: "latest",
      groups: [{ label: "paradigm=rehearse", runs: 2 }, { label: "paradigm=environment", runs: 2 }],
      rows: [{ label: "bfcl (bfcl:multi_turn_base)", cells: [{ n: 2, runs: 2, reward: stat(0.5, 0.1, 2), success: stat(0.25, 0.05, 2) }, { n: 1, runs: 2, reward: null, success: null }] }],
    });
    expect(lines).toEqual([
      "Evaluations (each run's latest; mean ± std across seeds):",
      "  bfcl (bfcl:multi_turn_base)",
      "    paradigm=rehearse              success 25% ± 5%           reward 0.5 ± 0.1        n=2/2",
      "    paradigm=environment           success —                  reward —                n=1/2",
    ]);
    expect(tableLines({ step: 3, groups: [], rows: [] })).toEqual(["No evaluations yet."]);
  });
});
