import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../contracts/run-config";
import { nodeRefsOf, nodesWithRoles } from "./node-refs";

describe("nodeRefsOf", () => {
  it("names every node of a config with its role, policy first", () => {
    const parsed = parseRunConfig({
      kind: "eval",
      policy: { node: "gpu", model: "qwen" },
      data: { dataset: "tau2:retail" },
      rollout: { paradigm: "simulator", simulator: { node: "sim", model: "s" }, userSimulator: { node: "gpu", model: "u" } },
      reward: { judge: { node: "judge", model: "j" } },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    expect(nodeRefsOf(parsed.config)).toEqual([
      { role: "policy", node: "gpu", model: "qwen" },
      { role: "tool simulator", node: "sim", model: "s" },
      { role: "user simulator", node: "gpu", model: "u" },
      { role: "judge", node: "judge", model: "j" },
    ]);
    expect(nodesWithRoles(parsed.config).map(({ node, refs }) => [node, refs.map((r) => r.role)])).toEqual([
      ["gpu", ["policy", "user simulator"]],
      ["sim", ["tool simulator"]],
      ["judge", ["judge"]],
    ]);
  });

  it("misses no node-valued setting of the config schema", () => {
    // Every { node, model } object anywhere in a config must have a role here (a new setting adds one).
    const everyNode = (v: unknown): string[] =>
      !v || typeof v !== "object" ? [] : [...(typeof (v as { node?: unknown }).node === "string" ? [(v as { node: string }).node] : []), ...Object.values(v).flatMap(everyNode)];
    const parsed = parseRunConfig({
      kind: "eval",
      policy: { node: "p", model: "m" },
      data: { dataset: "tau2:retail" },
      rollout: { paradigm: "simulator", simulator: { node: "s", model: "m" }, userSimulator: { node: "u", model: "m" } },
      reward: { judge: { node: "j", model: "m" } },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    expect(nodeRefsOf(parsed.config).map((r) => r.node).sort()).toEqual(everyNode(parsed.config).sort());
    // Evaluation suites name their own user simulators and judges.
    const training = parseRunConfig({
      policy: { node: "p", model: "m" },
      schedule: { evalSuites: [{ name: "retail", dataset: "tau2:retail", split: "train", limit: 1, userSimulator: { node: "su", model: "m" }, judge: { node: "sj", model: "m" } }] },
    });
    if (!training.ok) throw new Error(JSON.stringify(training.errors));
    expect(nodeRefsOf(training.config).map((r) => r.node).sort()).toEqual(everyNode(training.config).sort());
  });

  it("names the nodes of evaluation suites after the run's own, with the suite's index", () => {
    const config = {
      policy: { node: "gpu", model: "q" },
      schedule: { evalSuites: [{ name: "a", dataset: "builtin:shop" }, { name: "retail", userSimulator: { node: "u", model: "um" }, judge: { node: "j", model: "jm" } }] },
    };
    expect(nodeRefsOf(config)).toEqual([
      { role: "policy", node: "gpu", model: "q" },
      { role: "user simulator", node: "u", model: "um", suite: 1 },
      { role: "judge", node: "j", model: "jm", suite: 1 },
    ]);
    expect(nodeRefsOf(config, { suites: false })).toEqual([{ role: "policy", node: "gpu", model: "q" }]);
    expect(nodeRefsOf({ schedule: { evalSuites: "nope" } })).toEqual([]);
  });

  it("reads what a stored config still names and never throws", () => {
    expect(nodeRefsOf({ policy: { node: "a", model: "m" }, reward: { judge: { node: 3 } }, rollout: null })).toEqual([{ role: "policy", node: "a", model: "m" }]);
    expect(nodeRefsOf(null)).toEqual([]);
    expect(nodeRefsOf("nonsense")).toEqual([]);
  });
});
