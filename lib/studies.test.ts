import { describe, expect, it } from "vitest";
import { attributeProblems, cellConfig, cellLabel, gridCells, gridSettingProblem, spread, studyRunName, studySeeds, studySize } from "./studies";

describe("a study's grid", () => {
  const axes = [
    { setting: "rollout.paradigm", values: ["rehearse", "environment", "simulator"] },
    { setting: "policy.model", values: ["Qwen/Qwen3-1.7B", "Qwen/Qwen3-8B"] },
  ];

  it("has one cell per combination, the first axis slowest", () => {
    const cells = gridCells(axes);
    expect(cells).toHaveLength(6);
    expect(cells[0]).toEqual({ at: [0, 0], values: { "rollout.paradigm": "rehearse", "policy.model": "Qwen/Qwen3-1.7B" } });
    expect(cells[1]!.at).toEqual([0, 1]);
    expect(cells[5]!.values).toEqual({ "rollout.paradigm": "simulator", "policy.model": "Qwen/Qwen3-8B" });
    expect(gridCells([])).toEqual([{ at: [], values: {} }]);
    expect(studySize(axes, 4)).toBe(24);
    expect(studySize([], 3)).toBe(3);
  });

  it("names cells and runs by the settings' last segments", () => {
    expect(cellLabel({ "rollout.paradigm": "rehearse", "optim.lr": 1e-5, "reward.judge": { node: "j", model: "m" } })).toBe('paradigm=rehearse, lr=0.00001, judge={"node":"j","model":"m"}');
    expect(studyRunName("scale", { "rollout.paradigm": "rehearse" }, 2)).toBe("scale · paradigm=rehearse · seed 2");
    expect(studyRunName("seeds only", {}, 0)).toBe("seeds only · seed 0");
  });

  it("builds each run's config from the base, the cell and the seed, leaving the base as it was", () => {
    const base = { data: { dataset: "builtin:shop", seed: 3 }, rollout: { paradigm: "rehearse", shadowExecution: true } };
    const config = cellConfig(base, { "rollout.paradigm": "environment", "policy.model": "m" }, 5);
    expect(config).toEqual({ data: { dataset: "builtin:shop", seed: 5 }, rollout: { paradigm: "environment", shadowExecution: true }, policy: { model: "m" } });
    expect(base.rollout.paradigm).toBe("rehearse");
    expect(studySeeds(3, 4)).toEqual([3, 4, 5, 6]);
    expect(studySeeds(3, [7, 1])).toEqual([7, 1]);
  });

  it("varies only settings that exist (not the seed, not the kind)", () => {
    expect(gridSettingProblem("rollout.paradigm")).toBeNull();
    expect(gridSettingProblem("reward.judge")).toBeNull();
    expect(gridSettingProblem("schedule.evalSuites")).toBeNull();
    expect(gridSettingProblem("rollout.paradigms")).toBe("no such run setting (did you mean rollout.paradigm?)");
    expect(gridSettingProblem("data.seed")).toBe("seeds are the study's own axis: give seeds instead");
    expect(gridSettingProblem("kind")).toBe("a study's runs are all of one kind (the base config's)");
  });
});

describe("launch problems of a study's cells", () => {
  const axes = [
    { setting: "rollout.paradigm", values: ["rehearse", "simulator"] },
    { setting: "policy.model", values: ["a", "b"] },
  ];
  const cells = gridCells(axes); // (rehearse,a) (rehearse,b) (simulator,a) (simulator,b)
  const p = (path: string, message = "no") => ({ path, message });

  it("puts what every cell has on the base, what one value's cells have on that value, the rest on its first cell", () => {
    const everywhere = p("reward.judge", "needs a judge");
    const simulator = p("rollout.simulator", "needs a simulator");
    const modelB = p("policy.node", "model b is not served");
    const oneCell = p("data.dataset", "only here");
    const out = attributeProblems(axes, cells, [[everywhere], [everywhere, modelB], [everywhere, simulator], [everywhere, simulator, modelB, oneCell]]);
    expect(out.base).toEqual([everywhere]);
    expect(out.values).toEqual([
      { axis: 1, value: 1, problem: modelB },
      { axis: 0, value: 1, problem: simulator },
    ]);
    expect(out.cells).toEqual([{ cell: 3, problem: oneCell }]);
    expect(attributeProblems(axes, cells, [[], [], [], []])).toEqual({ base: [], values: [], cells: [] });
  });
});

describe("spread across seeds", () => {
  it("gives the mean, the sample standard deviation and n", () => {
    expect(spread([0.5, 0.7, 0.9])).toEqual({ mean: expect.closeTo(0.7, 10), std: expect.closeTo(0.2, 10), n: 3, min: 0.5, max: 0.9 });
    expect(spread([0.4])).toEqual({ mean: 0.4, std: 0, n: 1, min: 0.4, max: 0.4 });
    expect(spread([])).toBeNull();
  });
});
