import { describe, expect, it } from "vitest";
import { TrainingStates } from "./training-states";

describe("training states", () => {
  it("knows the committed states, marks steps without one as unsaved, and deletes a state only when a newer one is saved", () => {
    const states = new TrainingStates("run-abcdefgh", { train: [{ step: 1, statePath: "s1" }], eval: [], checkpoint: [] });
    expect(states.after(1)).toBe("s1");
    expect(states.lastSavedStep()).toBe(1);
    // Steps 2 and 3 save no state: nothing is stale, and step 1's state stays (a restart resumes from it).
    expect(states.committed(2, null, false)).toBeNull();
    expect(states.committed(3, null, false)).toBeNull();
    expect(states.unsaved(2) && states.unsaved(3)).toBe(true);
    expect(states.after(3)).toBeUndefined();
    expect(states.describe(3)).toBe("the state of step 1, replaying steps 2–3 (no state saved)");
    expect(states.describe(1)).toBe("the committed state of step 1");
    // Step 4 saves one; the next saved state makes it stale, not the unsaved steps.
    expect(states.committed(4, "s4", false)).toBeNull();
    expect(states.unsaved(3)).toBe(false);
    expect(states.lastSavedStep()).toBe(4);
    expect(states.committed(5, null, false)).toBeNull();
    expect(states.describe(5)).toBe("the state of step 4, replaying step 5 (no state saved)");
    expect(states.committed(6, "s6", true)).toBe("s4");
    // A checkpoint's state is never stale.
    expect(states.committed(7, "s7", false)).toBeNull();
  });

  it("forgets unsaved weights after a node restart", () => {
    const states = new TrainingStates("run-abcdefgh", { train: [], eval: [], checkpoint: [] });
    expect(states.lastSavedStep()).toBe(0);
    states.committed(1, null, false);
    expect(states.describe(1)).toBe("the base model, replaying step 1 (no state saved)");
    states.forgetUnsaved();
    expect(states.unsaved(1)).toBe(false);
  });
});
