import { describe, expect, it } from "vitest";
import { pyFromJsonText, PyDict } from "../../../../lib/python/values";
import { checkMultiTurn, missingFrom } from "./checker";
import type { BfclTask } from "../data";
import { multiTurnOverall, scoreCategory } from "./scores";

const FS_CONFIG = JSON.stringify({
  GorillaFileSystem: { root: { r: { type: "directory", contents: { "a.txt": { type: "file", content: "alpha" } } } } },
});

function fsTask(groundTruth: string[][]): BfclTask {
  return {
    id: "multi_turn_base_777",
    category: "multi_turn_base",
    question: groundTruth.map(() => [{ role: "user", content: "do it" }]),
    involvedClasses: ["GorillaFileSystem"],
    initialConfig: pyFromJsonText(FS_CONFIG) as PyDict,
    missedFunctions: new Map(),
    excludedFunctions: [],
    groundTruth,
    longContext: false,
  };
}

describe("checkMultiTurn", () => {
  it("names the turn, class and differing attribute when the state differs", () => {
    const task = fsTask([["ls()"], ["mkdir(dir_name='x')"]]);
    const result = checkMultiTurn(task, [[["ls()"]], [["mkdir(dir_name='y')"]]]);
    expect(result.valid).toBe(false);
    expect(result.failure).toMatchObject({
      errorType: "multi_turn:instance_state_mismatch",
      message: "Model instance for GorillaFileSystem does not match the state with ground truth instance.",
      turn: 1,
      className: "GorillaFileSystem",
    });
    expect(result.failure!.differences!.map((d) => d.attribute)).toEqual(["root"]);
    expect(result.failure!.differences![0].model).toContain("'y': <Directory: y, Parent: r, Contents: {}>");
    expect(result.failure!.differences![0].groundTruth).toContain("'x': <Directory: x, Parent: r, Contents: {}>");
    expect(result.execution.groundTruth).toEqual([['{"current_directory_content": ["a.txt"]}'], ["None"]]);
  });

  it("lists the ground-truth results the model never produced", () => {
    const task = fsTask([["cat(file_name='a.txt')"]]);
    const result = checkMultiTurn(task, [[["ls()"]]]);
    expect(result.failure).toMatchObject({
      errorType: "multi_turn:execution_response_mismatch",
      message: "Model response execution results so far does not contain all the ground truth response execution results for turn 0.",
      turn: 0,
      missing: ['{"file_content": "alpha"}'],
    });
  });

  it("accepts results the model produced in an earlier turn, in any order", () => {
    const task = fsTask([["ls()"], ["cat(file_name='a.txt')", "pwd()"]]);
    const result = checkMultiTurn(task, [[["cat(file_name='a.txt')", "ls()"]], [["pwd()"]]]);
    expect(result).toMatchObject({ valid: true });
  });

  it("does not check turns whose ground truth is empty, but their calls still change the state", () => {
    const task = fsTask([[], ["ls()"]]);
    expect(checkMultiTurn(task, [[], [["ls()"]]]).valid).toBe(true);
    const changed = checkMultiTurn(task, [[["touch(file_name='b.txt')"]], [["ls()"]]]);
    expect(changed.failure).toMatchObject({ errorType: "multi_turn:instance_state_mismatch", turn: 1 });
  });

  it("treats a single empty step as an empty response", () => {
    const result = checkMultiTurn(fsTask([["ls()"]]), [[[]]]);
    expect(result.failure).toMatchObject({ errorType: "multi_turn:empty_turn_model_response", turn: 0 });
  });

  it("keeps the model's and the ground truth's instances apart", () => {
    const task = fsTask([["mkdir(dir_name='x')"], ["ls()"]]);
    // The model creates x twice: the second fails on its own instance, not because the ground truth made x.
    const result = checkMultiTurn(task, [[["mkdir(dir_name='x')", "mkdir(dir_name='x')"]], [["ls()"]]]);
    expect(result.execution.model[0][0]).toEqual(["None", '{"error": "mkdir: cannot create directory \'x\': File exists"}']);
    expect(result.valid).toBe(true);
  });

  it("matches duplicates one for one", () => {
    expect(missingFrom(["a", "a", "b"], ["a", "b"])).toEqual(["a"]);
    expect(missingFrom(["a"], ["b", "a"])).toEqual([]);
  });
});

describe("scores", () => {
  it("are correct / total per category and an unweighted mean overall", () => {
    const base = scoreCategory("multi_turn_base", [{ valid: true }, { valid: false }, { valid: true }, { valid: true }]);
    const miss = scoreCategory("multi_turn_miss_func", [{ valid: false }, { valid: true }]);
    expect(base).toEqual({ category: "multi_turn_base", accuracy: 0.75, correctCount: 3, totalCount: 4 });
    const overall = multiTurnOverall([base, miss], { multi_turn_miss_param: 200, multi_turn_long_context: 200 });
    expect(overall.accuracy).toBeCloseTo((0.75 + 0.5) / 4, 12);
    expect(overall.complete).toBe(false);
    expect(overall.totalCount).toBe(406);
  });
});
