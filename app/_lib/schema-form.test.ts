import { describe, expect, it } from "vitest";
import { fieldOfError, formSections, panelsOf } from "./schema-form";

describe("fieldOfError", () => {
  const sections = formSections();
  it("shows an error on its setting, a group's error on the group's first field, anything else as named", () => {
    expect(fieldOfError(sections, "data.instancesPerStep")).toBe("data.instancesPerStep");
    expect(fieldOfError(sections, "rollout.userSimulator")).toBe("rollout.userSimulator.node");
    expect(fieldOfError(sections, "reward.judge")).toBe("reward.judge.node");
    expect(fieldOfError(sections, "schedule.evalEvry")).toBe("schedule.evalEvry");
  });
});

describe("a list setting's items (schedule.evalSuites)", () => {
  const sections = formSections();
  it("shows an item's error on its field, a group's on the group's first field", () => {
    expect(fieldOfError(sections, "schedule.evalSuites.1.instanceIds")).toBe("schedule.evalSuites.1.instanceIds");
    expect(fieldOfError(sections, "schedule.evalSuites.0.userSimulator")).toBe("schedule.evalSuites.0.userSimulator.node");
    expect(fieldOfError(sections, "schedule.evalSuites.2.judge.node")).toBe("schedule.evalSuites.2.judge.node");
    expect(fieldOfError(sections, "schedule.evalSuites.0.colour")).toBe("schedule.evalSuites.0.colour");
    expect(fieldOfError(sections, "schedule.evalSuites")).toBe("schedule.evalSuites");
  });
  it("opens no panel for an item field of the (open) schedule section", () => {
    expect(panelsOf(sections, "schedule.evalSuites.0.name")).toEqual([]);
    expect(panelsOf(sections, "sampling.act.temperature")).toEqual(["sampling"]);
  });
});
