import { describe, expect, it } from "vitest";
import { z } from "zod";
import { annotateRunConfigSchema, formatSettingValue, incompleteSettings, runSettingMeta, runSettings, runSettingSections, settingTitle, unknownSettingMessage, unknownSettings, withoutUnknownSettings } from "./run-settings";
import { presets, runConfigSchema } from "./run-config";

describe("every run setting is explained", () => {
  it("has a label (runSettingMeta) and a one-line description (.describe in run-config.ts)", () => {
    // When this fails after adding a field: give it .describe("…") in contracts/run-config.ts and a
    // label (and unit, advanced) in runSettingMeta in contracts/run-settings.ts.
    expect(incompleteSettings()).toEqual([]);
  });

  it("reports a field without a label or a description", () => {
    const schema = z.object({
      a: z.object({ described: z.number().default(1).describe("help"), bare: z.boolean().default(false) }).default({}),
      nested: z.object({ inner: z.object({ x: z.number().default(2).describe("x help") }).default({}) }).default({}),
    });
    const settings = runSettings(schema, { "a.described": { label: "Described" }, "nested.inner.x": { label: "X" } });
    expect(incompleteSettings(settings)).toEqual([
      "a.bare: no label in runSettingMeta (contracts/run-settings.ts)",
      "a.bare: no .describe() text in contracts/run-config.ts",
      "nested.inner: no group label in runSettingMeta",
    ]);
  });

  it("has no label for a field that no longer exists", () => {
    // A list of objects (schedule.evalSuites) labels its items' fields below its own key.
    const items = runSettings().flatMap((s) => (s.kind === "object-list" ? s.fields.map((f) => ({ key: `${s.key}.${f.key}`, path: [...s.path, ...f.path] })) : []));
    const leaves = new Set([...runSettings().map((s) => s.key), ...items.map((f) => f.key)]);
    const groups = new Set([...runSettings(), ...items].flatMap((s) => (s.path.length > 2 ? [s.path.slice(0, -1).join(".")] : [])));
    const stale = Object.keys(runSettingMeta).filter((k) => !leaves.has(k) && !groups.has(k));
    expect(stale).toEqual([]);
  });

  it("puts every setting in a listed section", () => {
    const sections = new Set(runSettingSections.map((s) => s.key));
    expect(runSettings().filter((s) => !sections.has(s.section)).map((s) => s.key)).toEqual([]);
  });
});

describe("runSettings", () => {
  const byKey = new Map(runSettings().map((s) => [s.key, s]));

  it("reads defaults, limits and units from the schema and the map", () => {
    expect(byKey.get("optim.lr")).toMatchObject({ kind: "number", default: 1e-6, label: "Learning rate", exclusiveMin: true, max: 1 });
    expect(byKey.get("data.instancesPerStep")).toMatchObject({ kind: "number", integer: true, min: 1, default: 16, unit: "tasks" });
    expect(byKey.get("rollout.paradigm")).toMatchObject({ kind: "enum", options: ["rehearse", "simulator", "environment"], default: "rehearse" });
    expect(byKey.get("reward.judgeTimeoutS")).toMatchObject({ unit: "s", advanced: true, default: 120 });
    // Defaults of nested objects come from the parent's default.
    expect(byKey.get("sampling.evalAct.temperature")?.default).toBe(0.6);
    expect(byKey.get("sampling.act.temperature")?.default).toBe(1);
  });

  it("describes a list of objects by its items' fields (schedule.evalSuites)", () => {
    const suites = byKey.get("schedule.evalSuites")!;
    expect(suites).toMatchObject({ kind: "object-list", label: "Evaluation suites", default: [] });
    if (suites.kind !== "object-list") throw new Error("not an object list");
    const fields = new Map(suites.fields.map((f) => [f.key, f]));
    expect([...fields.keys()]).toEqual(["name", "dataset", "split", "instanceIds", "limit", "repeats", "paradigm", "userSimulator.node", "userSimulator.model", "judge.node", "judge.model"]);
    expect(fields.get("name")).toMatchObject({ kind: "string", label: "Suite name", optional: false, default: undefined });
    expect(fields.get("split")).toMatchObject({ kind: "enum", default: "test" });
    expect(fields.get("repeats")).toMatchObject({ kind: "number", integer: true, min: 1, default: 1, unit: "trials" });
    expect(fields.get("userSimulator.node")).toMatchObject({ group: "User simulator", optional: true });
    expect(byKey.get("schedule.evalOwnSplit")).toMatchObject({ kind: "boolean", default: true });
  });

  it("marks optional settings without a default as unset", () => {
    expect(byKey.get("data.poolSize")).toMatchObject({ optional: true, default: undefined });
    expect(byKey.get("rollout.simulator.node")).toMatchObject({ optional: true, default: undefined, group: "Tool simulator" });
    expect(formatSettingValue(byKey.get("data.poolSize")!.default)).toBe("unset");
  });

  it("prefixes a nested setting's help and title with its group's", () => {
    const t = byKey.get("sampling.rehearse.maxTokens")!;
    expect(settingTitle(t)).toBe("Rehearse (training) · Max tokens");
    expect(t.description).toBe("Rehearse role (predicted tool responses) in training rollouts: Most tokens one generation may produce");
  });

  it("leaves out the fixed schema version", () => {
    expect(byKey.has("schemaVersion")).toBe(false);
  });
});

describe("annotateRunConfigSchema", () => {
  it("adds labels, units and the schema's help by path", () => {
    const json = {
      type: "object",
      properties: {
        optim: { type: "object", properties: { lr: { type: "number" } } },
        rollout: { type: "object", properties: { promptBudgetTokens: { type: "integer" } } },
      },
    };
    const out = annotateRunConfigSchema(json);
    expect(out.properties.optim.properties.lr).toMatchObject({ title: "Learning rate", description: expect.stringMatching(/^Learning rate of the AdamW update/) });
    expect(out.properties.rollout.properties.promptBudgetTokens).toMatchObject({ title: "Prompt budget", "x-unit": "tokens" });
    expect(json.properties.optim.properties.lr).not.toHaveProperty("title"); // the input is not changed
  });
});

it("formats values for people", () => {
  expect([true, false, [], ["a", "b"], 0.5, "x", undefined].map(formatSettingValue)).toEqual(["on", "off", "none", "a, b", "0.5", "x", "unset"]);
});

describe("unknown settings", () => {
  it("names every key the schema does not know, at any depth, with the nearest known key beside it", () => {
    expect(unknownSettings({ schedule: { evalEvry: 5, steps: 3 }, data: { dataset: "builtin:shop", instanceIDs: ["a"] }, testTime: { sampling: { act: { temprature: 1 } } } })).toEqual([
      { path: "schedule.evalEvry", suggestion: "schedule.evalEvery" },
      { path: "data.instanceIDs", suggestion: "data.instanceIds" },
      { path: "testTime.sampling.act.temprature", suggestion: "testTime.sampling.act.temperature" },
    ]);
    expect(unknownSettings({ schedule: { wandbProject: "x" }, wandb: { project: "x" } })).toEqual([
      { path: "schedule.wandbProject", suggestion: null },
      { path: "wandb", suggestion: null },
    ]);
    expect(unknownSettingMessage({ path: "schedule.evalEvry", suggestion: "schedule.evalEvery" })).toBe("unknown setting (did you mean schedule.evalEvery?)");
    // Optional groups (a judge), values of the wrong type (left to the schema), and every preset.
    expect(unknownSettings({ reward: { judge: { node: "j", model: "m", temp: 1 } }, data: "oops" })).toEqual([{ path: "reward.judge.temp", suggestion: null }]);
    for (const [key, preset] of Object.entries(presets)) expect(unknownSettings(preset.config), key).toEqual([]);
    expect(unknownSettings(runConfigSchema.parse({}))).toEqual([]);
  });

  it("leaves them out of a copy (cloning an older run), saying which", () => {
    const stored = { kind: "train", schedule: { steps: 3, wandbProject: "x" }, legacy: true };
    expect(withoutUnknownSettings(stored)).toEqual({ config: { kind: "train", schedule: { steps: 3 } }, dropped: ["schedule.wandbProject", "legacy"] });
    expect(stored.schedule.wandbProject).toBe("x");
    const clean = { kind: "eval" };
    expect(withoutUnknownSettings(clean)).toEqual({ config: clean, dropped: [] });
  });
});
