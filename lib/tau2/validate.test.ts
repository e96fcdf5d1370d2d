import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PyDict } from "../python/values";
import { loadTasks, parseTau2InstanceId, pyArgumentsOf, rewardBasisOf, tau2DataFiles, tau2DomainsOf, type Tau2Task } from "./tasks";
import { tau2TaskProblems, tau2TasksProblem } from "./validate";

const base = (over: Partial<Tau2Task> = {}): Tau2Task =>
  ({
    id: "t1",
    user_scenario: { instructions: { domain: "telecom", reason_for_call: "r", task_instructions: "i" } },
    evaluation_criteria: { actions: [], env_assertions: [] },
    ...over,
  }) as Tau2Task;

describe("what a task may name", () => {
  it("tools per requestor, functions per side, the reward basis, the user DB", () => {
    const t = base({
      initial_state: { initialization_actions: [{ env_type: "user", func_name: "teleport", arguments: {} }], initialization_data: null, message_history: null },
      evaluation_criteria: {
        actions: [
          { action_id: "a", name: "toggle_data", arguments: {}, requestor: "user" },
          { action_id: "b", name: "toggle_data", arguments: {} },
        ],
        env_assertions: [{ env_type: "assistant", func_name: "assert_line_status", arguments: {}, assert_value: true }],
        reward_basis: ["NL_ASSERTION"],
      },
    });
    expect(tau2TaskProblems("telecom", t)).toEqual([
      { path: "evaluation_criteria.actions.1.name", message: 'no agent tool "toggle_data" in the telecom domain' },
      { path: "initial_state.initialization_actions.0.func_name", message: 'no user function "teleport" in the telecom domain' },
      { path: "evaluation_criteria.reward_basis", message: expect.stringMatching(/NL_ASSERTION/) },
    ]);
    const airline = base({ evaluation_criteria: { actions: [{ action_id: "a", name: "toggle_data", arguments: {}, requestor: "user" }] } });
    expect(tau2TaskProblems("airline", airline)).toEqual([{ path: "evaluation_criteria.actions.0.name", message: 'the airline user has no tools (action "toggle_data" is requested by the user)' }]);
    expect(tau2TasksProblem("airline", [base(), airline], "tasks.json")).toBe('tasks.json: task #1 (id "t1") evaluation_criteria.actions.0.name: the airline user has no tools (action "toggle_data" is requested by the user)');
    expect(tau2TaskProblems("airline", base({ evaluation_criteria: { actions: [{ action_id: "a", name: "book_reservation", arguments: {} }] } }))).toEqual([]);
  });

  it("a task file keeps Python's int/float distinction in every argument dict; a default basis when absent", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tau2-tasks-"));
    const file = path.join(dir, "tasks.json");
    // Written by hand: JSON.stringify would write 2.0 as 2.
    writeFileSync(file, JSON.stringify([base()]).replace('"actions":[]', '"actions":[{"action_id":"a","name":"refuel_data","arguments":{"gb_amount":2.0,"n":2}}]'));
    const [task] = loadTasks(file);
    const args = pyArgumentsOf(task!.evaluation_criteria!.actions![0]!);
    expect(args).toBeInstanceOf(PyDict);
    expect(args.get("gb_amount")).toBe(2.0);
    expect(typeof args.get("gb_amount")).toBe("number");
    expect(args.get("n")).toBe(2n);
    expect(rewardBasisOf(task!)).toEqual(["DB", "COMMUNICATE"]);
    expect(rewardBasisOf(base({ evaluation_criteria: { reward_basis: [] } }))).toEqual([]);
  });

  it("datasets and instance ids", () => {
    expect(tau2DomainsOf("tau2:all")).toEqual(["retail", "airline", "telecom"]);
    expect(tau2DomainsOf("tau2:telecom")).toEqual(["telecom"]);
    expect(tau2DomainsOf("tau2:banking")).toBeNull();
    expect(parseTau2InstanceId("tau2:telecom/[x]a|b[PERSONA:None]", null)).toEqual({ domain: "telecom", taskId: "[x]a|b[PERSONA:None]" });
    expect(parseTau2InstanceId("7", "airline")).toEqual({ domain: "airline", taskId: "7" });
    expect(parseTau2InstanceId("7", null)).toBeNull();
  });

  it("a missing data folder is named with the variable to set", () => {
    const old = process.env.ENVACE_DATA_DIR;
    process.env.ENVACE_DATA_DIR = path.join(tmpdir(), "no-such-data");
    try {
      expect(() => tau2DataFiles("telecom")).toThrow(/^tau2 telecom data not found \(.*tau2-telecom\/db\.toml.*\)\. Set ENVACE_DATA_DIR to a folder containing tau2-telecom\//);
    } finally {
      if (old === undefined) delete process.env.ENVACE_DATA_DIR;
      else process.env.ENVACE_DATA_DIR = old;
    }
  });
});
