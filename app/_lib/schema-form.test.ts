import { describe, expect, it } from "vitest";
import { fieldOfError, formSections } from "./schema-form";

describe("fieldOfError", () => {
  const sections = formSections();
  it("shows an error on its setting, a group's error on the group's first field, anything else as named", () => {
    expect(fieldOfError(sections, "data.instancesPerStep")).toBe("data.instancesPerStep");
    expect(fieldOfError(sections, "rollout.userSimulator")).toBe("rollout.userSimulator.node");
    expect(fieldOfError(sections, "reward.judge")).toBe("reward.judge.node");
    expect(fieldOfError(sections, "schedule.evalEvry")).toBe("schedule.evalEvry");
  });
});
