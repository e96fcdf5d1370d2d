import { describe, expect, it } from "vitest";
import { presets } from "../../contracts/run-config";
import { describeProblems, parseLaunchConfig } from ".";

describe("parseLaunchConfig (a new launch's settings)", () => {
  it("refuses unknown keys anywhere with the schema's own errors, naming each path", () => {
    const parsed = parseLaunchConfig({ schedule: { evalEvry: 5, wandbProject: "x" }, data: { dataset: "builtin:nope", instancesPerStep: 0 } });
    expect(parsed).toEqual({
      ok: false,
      errors: [
        { path: "schedule.evalEvry", message: "unknown setting (did you mean schedule.evalEvery?)" },
        { path: "schedule.wandbProject", message: "unknown setting" },
        { path: "data.instancesPerStep", message: "Number must be greater than or equal to 1" },
        { path: "data.dataset", message: 'unknown built-in domain "nope" (built in: builtin:shop)' },
      ],
    });
  });

  it("takes every preset, and a config with nothing unknown, as the schema parses it", () => {
    for (const [key, preset] of Object.entries(presets)) expect(parseLaunchConfig(preset.config).ok, key).toBe(true);
    const parsed = parseLaunchConfig({ data: { dataset: "builtin:shop" } });
    expect(parsed.ok && parsed.config.data.instancesPerStep).toBe(16);
  });

  it("says the first problem and how many more in one line", () => {
    expect(describeProblems([])).toBe("");
    expect(describeProblems([{ path: "policy.node", message: 'node "x" (policy) is not registered' }, { path: "data.dataset", message: "no" }])).toBe(
      'policy.node: node "x" (policy) is not registered (and 1 more)',
    );
  });
});
