import { describe, expect, it } from "vitest";
import { describePlan, missingParts, partsOf, planResume, savesState, type CommittedParts } from "./resume";

const schedule = { steps: 4, saveEvery: 2, evalEvery: 2 };
const trained = (...steps: number[]) => steps.map((step) => ({ step, statePath: `tinker://m/weights/s${step}` }));
const none: CommittedParts = { train: [], eval: [], checkpoint: [] };

describe("step parts", () => {
  it("checkpoints every saveEvery steps, evaluates every evalEvery steps, and does both at the last step", () => {
    expect(partsOf(1, schedule)).toEqual(["train"]);
    expect(partsOf(2, schedule)).toEqual(["train", "checkpoint", "eval"]);
    expect(partsOf(3, { steps: 3, saveEvery: 100, evalEvery: 100 })).toEqual(["train", "checkpoint", "eval"]);
    expect(partsOf(3, { steps: 6, saveEvery: 3, evalEvery: 2 })).toEqual(["train", "checkpoint"]);
  });
});

describe("resume plan", () => {
  it("starts a fresh run at step 1 from the base model", () => {
    const plan = planResume(schedule, none);
    expect(plan.startState).toBeNull();
    expect(plan.work.map((w) => [w.step, w.parts])).toEqual([
      [1, ["train"]],
      [2, ["train", "checkpoint", "eval"]],
      [3, ["train"]],
      [4, ["train", "checkpoint", "eval"]],
    ]);
  });

  it("continues after the last committed step when every part of it exists", () => {
    const plan = planResume(schedule, { train: trained(1, 2), eval: [2], checkpoint: [2] });
    expect(plan.work[0]).toMatchObject({ step: 3, parts: ["train"] });
    expect(plan.startState).toBe("tinker://m/weights/s2");
  });

  it("evaluates a step whose training committed but whose evaluation did not (a crash during the evaluation)", () => {
    const plan = planResume(schedule, { train: trained(1, 2), eval: [], checkpoint: [2] });
    expect(plan.work.map((w) => [w.step, w.parts])).toEqual([
      [2, ["eval"]],
      [3, ["train"]],
      [4, ["train", "checkpoint", "eval"]],
    ]);
    // The evaluation samples the weights of step 2, not of step 1.
    expect(plan.startState).toBe("tinker://m/weights/s2");
    expect(describePlan(plan)).toBe("resuming at step 2 (evaluation) from tinker://m/weights/s2, then steps 3–4");
  });

  it("finishes the last step's evaluation instead of declaring the run complete", () => {
    const plan = planResume(schedule, { train: trained(1, 2, 3, 4), eval: [2], checkpoint: [2, 4] });
    expect(plan.work.map((w) => [w.step, w.parts])).toEqual([[4, ["eval"]]]);
    expect(plan.startState).toBe("tinker://m/weights/s4");
    expect(describePlan(plan)).toBe("resuming at step 4 (evaluation) from tinker://m/weights/s4");
  });

  it("makes a missing checkpoint of a committed step", () => {
    const plan = planResume(schedule, { train: trained(1, 2), eval: [2], checkpoint: [] });
    expect(plan.work[0]).toMatchObject({ step: 2, parts: ["checkpoint"], statePath: "tinker://m/weights/s2" });
  });

  it("has no work when every part of every step exists", () => {
    const committed = { train: trained(1, 2, 3, 4), eval: [2, 4], checkpoint: [2, 4] };
    expect(planResume(schedule, committed).work).toEqual([]);
    expect(missingParts(schedule, committed)).toEqual([]);
  });

  it("names every missing part", () => {
    expect(missingParts(schedule, { train: trained(1, 2, 3, 4), eval: [2], checkpoint: [2] })).toEqual(["checkpoint at step 4", "evaluation at step 4"]);
  });

  it("refuses to resume without the training state it needs", () => {
    // Step 2's evaluation would sample step 2's weights, which were never saved, although step 3 committed after it.
    const gap: CommittedParts = { train: [{ step: 1, statePath: "s1" }, { step: 2, statePath: null }, { step: 3, statePath: "s3" }], eval: [], checkpoint: [] };
    expect(() => planResume(schedule, gap)).toThrow(/step 2 has no saved training state/);
    expect(() => planResume(schedule, { train: trained(1, 3), eval: [], checkpoint: [] })).toThrow(/training step 2 is missing/);
    // A checkpoint always has a state: one without is refused, never replayed.
    expect(() => planResume(schedule, { train: [{ step: 1, statePath: "s1" }, { step: 2, statePath: null }], eval: [], checkpoint: [2] })).toThrow(/step 2 has a checkpoint but no saved training state/);
  });
});

describe("training states every stateEvery steps", () => {
  const every3 = { steps: 10, saveEvery: 8, evalEvery: 5, stateEvery: 3 };
  const committedUpTo = (last: number, sched = every3): CommittedParts["train"] =>
    Array.from({ length: last }, (_, i) => i + 1).map((step) => ({ step, statePath: savesState(step, sched) ? `s${step}` : null }));

  it("saves a state every stateEvery steps, at every checkpoint and at the last step; every step when unset", () => {
    expect(Array.from({ length: 10 }, (_, i) => i + 1).filter((s) => savesState(s, every3))).toEqual([3, 6, 8, 9, 10]);
    expect(Array.from({ length: 4 }, (_, i) => i + 1).filter((s) => savesState(s, schedule))).toEqual([1, 2, 3, 4]);
  });

  it("resumes from the last saved state and replays the committed steps after it, every part of them", () => {
    // Killed after step 5 committed: step 3 has the last state; 4 and 5 (with step 5's evaluation) are replayed.
    const plan = planResume(every3, { train: committedUpTo(5), eval: [5], checkpoint: [] });
    expect(plan.stateStep).toBe(3);
    expect(plan.replayed).toEqual([4, 5]);
    expect(plan.startState).toBe("s3");
    expect(plan.work.slice(0, 3).map((w) => [w.step, w.parts, w.replay ?? false])).toEqual([
      [4, ["train"], true],
      [5, ["train", "eval"], true],
      [6, ["train"], false],
    ]);
    expect(plan.work.at(-1)).toMatchObject({ step: 10, parts: ["train", "checkpoint", "eval"] });
    expect(describePlan(plan)).toBe("resuming from the state of step 3 (s3); replaying steps 4–5 (no state saved)");
  });

  it("replays at most stateEvery − 1 steps", () => {
    for (let last = 1; last < 10; last++) {
      const plan = planResume(every3, { train: committedUpTo(last), eval: [5].filter((s) => s <= last), checkpoint: [8].filter((s) => s <= last) });
      expect(plan.replayed.length).toBeLessThanOrEqual(2);
      expect(plan.work[0]!.step).toBe(plan.stateStep + 1);
    }
  });

  it("replays from the base model when no state was saved yet", () => {
    const plan = planResume(every3, { train: committedUpTo(2), eval: [], checkpoint: [] });
    expect(plan).toMatchObject({ stateStep: 0, replayed: [1, 2], startState: null });
    expect(plan.work[0]).toMatchObject({ step: 1, parts: ["train"], replay: true });
    expect(describePlan(plan)).toBe("resuming from the base model; replaying steps 1–2 (no state saved)");
  });

  it("replays nothing when the last committed step saved its state", () => {
    const plan = planResume(every3, { train: committedUpTo(6), eval: [5], checkpoint: [] });
    expect(plan.replayed).toEqual([]);
    expect(plan.work[0]).toMatchObject({ step: 7, parts: ["train"] });
    expect(plan.work.some((w) => w.replay)).toBe(false);
    expect(describePlan(plan)).toBe("resuming after committed step 6 from s6");
  });

  it("is complete only when the last step saved its state (it always does)", () => {
    const all = { train: committedUpTo(10), eval: [5, 10], checkpoint: [8, 10] };
    expect(missingParts(every3, all)).toEqual([]);
  });
});

describe("evaluation suites as parts of a step", () => {
  const suites = { ...schedule, evalSuites: [{ name: "bfcl" }, { name: "retail" }] };

  it("evaluates each suite after the dataset's own evaluation, or instead of it", () => {
    expect(partsOf(1, suites)).toEqual(["train"]);
    expect(partsOf(2, suites)).toEqual(["train", "checkpoint", "eval", "suite:bfcl", "suite:retail"]);
    expect(partsOf(4, { ...suites, evalOwnSplit: false })).toEqual(["train", "checkpoint", "suite:bfcl", "suite:retail"]);
  });

  it("after a crash between two suites, evaluates only the suite that did not commit, from the step's own state", () => {
    const committed: CommittedParts = { train: trained(1, 2), eval: [2], checkpoint: [2], suites: { bfcl: [2] } };
    const plan = planResume(suites, committed);
    expect(plan.work.map((w) => [w.step, w.parts])).toEqual([
      [2, ["suite:retail"]],
      [3, ["train"]],
      [4, ["train", "checkpoint", "eval", "suite:bfcl", "suite:retail"]],
    ]);
    expect(plan.startState).toBe("tinker://m/weights/s2");
    expect(describePlan(plan)).toBe("resuming at step 2 (evaluation suite retail) from tinker://m/weights/s2, then steps 3–4");
  });

  it("is complete only when every suite of every evaluated step committed", () => {
    const committed: CommittedParts = { train: trained(1, 2, 3, 4), eval: [2, 4], checkpoint: [2, 4], suites: { bfcl: [2, 4], retail: [2] } };
    expect(missingParts(suites, committed)).toEqual(["evaluation suite retail at step 4"]);
    expect(missingParts(suites, { ...committed, suites: { bfcl: [2, 4], retail: [2, 4] } })).toEqual([]);
    // A suite's commits say nothing about another's, nor about the dataset's own evaluation.
    expect(missingParts(suites, { ...committed, eval: [2], suites: { bfcl: [2, 4], retail: [2, 4] } })).toEqual(["evaluation at step 4"]);
  });
});
