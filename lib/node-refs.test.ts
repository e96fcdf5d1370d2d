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
  });

  it("reads what a stored config still names and never throws", () => {
    expect(nodeRefsOf({ policy: { node: "a", model: "m" }, reward: { judge: { node: 3 } }, rollout: null })).toEqual([{ role: "policy", node: "a", model: "m" }]);
    expect(nodeRefsOf(null)).toEqual([]);
    expect(nodeRefsOf("nonsense")).toEqual([]);
  });
});
