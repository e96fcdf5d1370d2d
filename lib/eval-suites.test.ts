import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../contracts/run-config";
import { parseLaunchConfig } from "./launch-check";
import { limitSuiteInstances, suiteKind, suiteMetricKey, suiteOfKind, suiteParadigm, suiteProblemPath, suiteRunConfig } from "./eval-suites";

const parsed = (input: RunConfigInput) => {
  const p = parseRunConfig(input);
  if (!p.ok) throw new Error(JSON.stringify(p.errors));
  return p.config;
};
const errorsOf = (input: unknown) => {
  const p = parseLaunchConfig(input);
  return p.ok ? [] : p.errors;
};

describe("schedule.evalSuites in the run-config schema", () => {
  it("takes suites with their defaults, and none by default", () => {
    expect(parsed({}).schedule).toMatchObject({ evalOwnSplit: true, evalSuites: [] });
    const config = parsed({ schedule: { evalSuites: [{ name: "bfcl-base", dataset: "bfcl:multi_turn_base", instanceIds: ["multi_turn_base_0"] }] } });
    expect(config.schedule.evalSuites).toEqual([{ name: "bfcl-base", dataset: "bfcl:multi_turn_base", split: "test", instanceIds: ["multi_turn_base_0"], repeats: 1 }]);
  });

  it("refuses bad suites, each on its own field", () => {
    const suites = [
      { name: "a", dataset: "builtin:shop", limit: 2 },
      { name: "a", dataset: "builtin:nope", limit: 2 },
      { name: "Bad Name", dataset: "builtin:shop", limit: 1 },
      { name: "reward", dataset: "builtin:shop", limit: 1 },
      { name: "both", dataset: "builtin:shop", limit: 1, instanceIds: ["x"] },
      { name: "neither", dataset: "builtin:shop" },
      { name: "retail", dataset: "tau2:retail", split: "train", limit: 2 },
      { name: "sim", dataset: "builtin:shop", limit: 1, paradigm: "simulator" },
      { name: "cats", dataset: "bfcl:no_such_category", limit: 1 },
      { name: "odd", dataset: "somewhere:else", limit: 1, repeats: 0, colour: "red" },
    ];
    expect(errorsOf({ schedule: { evalSuites: suites } })).toEqual([
      { path: "schedule.evalSuites.9.colour", message: "unknown setting" },
      { path: "schedule.evalSuites.2.name", message: "lowercase letters, digits, - and _ (at most 40, starting with a letter or digit)" },
      { path: "schedule.evalSuites.3.name", message: '"reward" is a metric namespace of every evaluation; choose another name' },
      { path: "schedule.evalSuites.9.dataset", message: "must be builtin:<name>, tau2:retail|airline|telecom|all, bfcl:<category or group>[,…], vitabench:<domain>[/<lang>], finmcp:<file>, dataset:<id> or mcp:<server>/<dataset>" },
      { path: "schedule.evalSuites.9.repeats", message: "Number must be greater than or equal to 1" },
      { path: "schedule.evalSuites.1.name", message: 'suite name "a" is already used by suite 0' },
      { path: "schedule.evalSuites.1.dataset", message: 'unknown built-in domain "nope" (built in: builtin:shop)' },
      { path: "schedule.evalSuites.4.limit", message: "give instanceIds or limit, not both" },
      { path: "schedule.evalSuites.5.instanceIds", message: "name the suite's tasks: instanceIds, or limit (a seeded sample of that many tasks of the split)" },
      { path: "schedule.evalSuites.6.userSimulator", message: "tau2 retail tasks need a user-simulator node and model (here or in rollout.userSimulator)" },
      { path: "schedule.evalSuites.7.paradigm", message: "the simulator paradigm needs rollout.simulator (a simulator node and model)" },
      { path: "schedule.evalSuites.8.dataset", message: expect.stringContaining('unknown BFCL category or group "no_such_category"') },
    ]);
    // A BFCL training run's own evaluation charts val/bfcl/…: a suite of that name would share it.
    expect(errorsOf({ data: { dataset: "bfcl:multi_turn_base" }, schedule: { evalSuites: [{ name: "bfcl", dataset: "builtin:shop", limit: 1 }] } })).toEqual([
      { path: "schedule.evalSuites.0.name", message: "the run's own evaluation charts val/bfcl/…: choose another suite name" },
    ]);
    expect(errorsOf({ schedule: { evalSuites: [{ name: "bfcl", dataset: "bfcl:multi_turn_base", limit: 1 }] } })).toEqual([]);
  });

  it("a run's own user simulator serves a tau2 suite; suites belong to training runs; skipping the own split needs a suite", () => {
    expect(errorsOf({ rollout: { userSimulator: { node: "u", model: "m" } }, schedule: { evalSuites: [{ name: "retail", dataset: "tau2:retail", split: "train", limit: 2 }] } })).toEqual([]);
    expect(errorsOf({ kind: "eval", schedule: { evalSuites: [{ name: "x", dataset: "builtin:shop", limit: 1 }] } })).toEqual([
      { path: "schedule.evalSuites", message: "evaluation suites belong to training runs; an evaluation run evaluates data.dataset (launch one per benchmark)" },
    ]);
    expect(errorsOf({ schedule: { evalOwnSplit: false } })).toEqual([
      { path: "schedule.evalOwnSplit", message: "a training run that skips its dataset's evaluation needs at least one evaluation suite (schedule.evalSuites)" },
    ]);
    expect(errorsOf({ schedule: { evalOwnSplit: false, evalSuites: [{ name: "x", dataset: "builtin:shop", limit: 1 }] } })).toEqual([]);
  });
});

describe("a suite's evaluation config", () => {
  const run = parsed({
    policy: { node: "gpu", model: "qwen" },
    data: { dataset: "dataset:cm2", poolSize: 8, instancesPerStep: 16, rolloutsPerInstance: 4, seed: 9 },
    rollout: { paradigm: "rehearse", shadowExecution: true, userSimulator: { node: "u", model: "um" } },
    reward: { judge: { node: "j", model: "jm" }, rehearsalGrounding: 1 },
    schedule: {
      steps: 5,
      evalSuites: [
        { name: "bfcl", dataset: "bfcl:multi_turn_base", instanceIds: ["multi_turn_base_0", "multi_turn_base_1"], repeats: 4 },
        { name: "retail", dataset: "tau2:retail", split: "train", limit: 3, userSimulator: { node: "u2", model: "um2" } },
        { name: "cm2-test", dataset: "dataset:cm2", limit: 8 },
      ],
    },
  });
  const [bfcl, retail, cm2] = run.schedule.evalSuites as [never, never, never];

  it("is an evaluation of the suite's benchmark with the run's policy, sampling and limits", () => {
    const c = suiteRunConfig(run, bfcl);
    expect(c.kind).toBe("eval");
    expect(c.policy).toEqual(run.policy);
    expect(c.sampling).toEqual(run.sampling);
    expect(c.data).toMatchObject({ dataset: "bfcl:multi_turn_base", split: "test", instanceIds: ["multi_turn_base_0", "multi_turn_base_1"], poolSize: undefined, instancesPerStep: 2, seed: 0 });
    expect(c.trialsPerTask).toBe(4);
    expect(c.rollout).toMatchObject({ paradigm: "environment", shadowExecution: false, userSimulator: { node: "u", model: "um" }, maxAssistantTurns: run.rollout.maxAssistantTurns });
    expect(c.reward).toMatchObject({ judge: { node: "j", model: "jm" }, rehearsalGrounding: 0 });
    expect(c.schedule.evalSuites).toEqual([]);
    expect(c.testTime.enabled).toBe(false);
    expect(c.fidelityProbe).toBe(false);
    // The suite's own user simulator replaces the run's; an imported dataset is rehearsed (it has no environment).
    expect(suiteRunConfig(run, retail).rollout.userSimulator).toEqual({ node: "u2", model: "um2" });
    expect(suiteRunConfig(run, retail).data.instancesPerStep).toBe(3);
    expect(suiteRunConfig(run, cm2).rollout.paradigm).toBe("rehearse");
    expect(suiteParadigm({ dataset: "builtin:shop", paradigm: "simulator" })).toBe("simulator");
    // The run's config is left as it was.
    expect(run.data.dataset).toBe("dataset:cm2");
    expect(run.schedule.evalSuites).toHaveLength(3);
  });

  it("names a problem of the suite's evaluation on the run's field it comes from", () => {
    expect(suiteProblemPath(1, retail, "data.instanceIds")).toBe("schedule.evalSuites.1.instanceIds");
    expect(suiteProblemPath(1, retail, "data.split")).toBe("schedule.evalSuites.1.split");
    expect(suiteProblemPath(1, retail, "rollout.paradigm")).toBe("schedule.evalSuites.1.paradigm");
    expect(suiteProblemPath(1, retail, "rollout.userSimulator.node")).toBe("schedule.evalSuites.1.userSimulator.node");
    // Inherited from the run: the run's own field.
    expect(suiteProblemPath(0, bfcl, "rollout.userSimulator.node")).toBe("rollout.userSimulator.node");
    expect(suiteProblemPath(0, bfcl, "reward.judge")).toBe("reward.judge");
    expect(suiteProblemPath(0, bfcl, "policy.node")).toBe("schedule.evalSuites.0.dataset");
    expect(suiteProblemPath(0, bfcl, "rollout.simulator.node")).toBe("rollout.simulator.node");
  });
});

describe("suite names in steps, phases and metric keys", () => {
  it("round-trips the kind and namespaces metrics under val/<suite>/", () => {
    expect(suiteKind("bfcl")).toBe("suite:bfcl");
    expect(suiteOfKind("suite:bfcl")).toBe("bfcl");
    expect(suiteOfKind("eval")).toBeNull();
    expect(suiteMetricKey("bfcl", "reward/mean")).toBe("val/bfcl/reward/mean");
    expect(suiteMetricKey("bfcl", "val/pass@4")).toBe("val/bfcl/pass@4");
    expect(suiteMetricKey("retail", "val/tau2/pass^1")).toBe("val/retail/tau2/pass^1");
    expect(suiteMetricKey("bfcl", "response_length/act/mean")).toBe("val/bfcl/response_length/act/mean");
  });

  it("keeps each task once and a fixed sample of `limit`", () => {
    const items = ["a", "b", "a", "c", "d"].map((id) => ({ id }));
    const reverse = (xs: { id: string }[]) => [...xs].reverse();
    expect(limitSuiteInstances(items, undefined, reverse).map((i) => i.id)).toEqual(["a", "b", "c", "d"]);
    expect(limitSuiteInstances(items, 2, reverse).map((i) => i.id)).toEqual(["d", "c"]);
    expect(limitSuiteInstances(items, 9, reverse).map((i) => i.id)).toEqual(["a", "b", "c", "d"]);
  });
});
