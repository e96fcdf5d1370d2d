/**
 * What a training run still has to do, from what it committed. A step has up to three kinds of part,
 * done in this order: the training update (a `step` row of kind train, with the training state saved
 * after it when the step saves one: `savesState`), a checkpoint (every `saveEvery` steps and at the last
 * step) and its evaluations (every `evalEvery` steps and at the last step): the dataset's own (kind eval,
 * unless `evalOwnSplit` is off) and one per evaluation suite (kind `suite:<name>`), each committed on its
 * own. A crash can fall between any two of them, so resuming continues every unfinished part, not only
 * the training; and a run is complete only when every part of every step exists.
 *
 * The full training state (weights + optimiser) is saved every `stateEvery` steps, at every checkpoint
 * and at the last step; the other steps commit without one (statePath null). A run resumes from the last
 * committed step that has a state and **replays** the committed training steps after it (at most
 * stateEvery − 1): their weights exist nowhere. A replayed step redoes every part it has — its
 * evaluations too, since they sampled weights the replay recomputes (on a real node not bit-identically)
 * — and each part's commit replaces that part's committed rows (persist.ts `replace`), so nothing is
 * duplicated. Checkpoints always have a state, so none is ever replayed. Pure: the rows are read by
 * `persist.ts` (`committedParts`).
 */
import { suiteKind, suiteOfKind } from "../../lib/eval-suites";

/** A suite's evaluation part is named like its step kind: `suite:<name>`. */
export type StepPart = "train" | "checkpoint" | "eval" | `suite:${string}`;

export interface Schedule {
  steps: number;
  saveEvery: number;
  evalEvery: number;
  /** Evaluate the dataset's own split (absent: yes). */
  evalOwnSplit?: boolean;
  /** Evaluation suites, in their order (absent: none). */
  evalSuites?: readonly { name: string }[];
  /** Save the training state every this many steps (absent: every step). */
  stateEvery?: number;
}

/** What is committed for a run: its train steps (with their training state), evaluations and checkpoints. */
export interface CommittedParts {
  train: Array<{ step: number; statePath: string | null }>;
  eval: number[];
  checkpoint: number[];
  /** Committed steps of each evaluation suite, by name (absent: none). */
  suites?: Record<string, number[]>;
}

export interface StepWork {
  step: number;
  /** The parts still to do, in order. */
  parts: StepPart[];
  /** The training state after this step when its training part is committed (its other parts start from it). */
  statePath: string | null;
  /** A committed step replayed (no state was saved after it): each of its parts replaces its committed rows. */
  replay?: boolean;
}

export interface ResumePlan {
  /** Steps with something left to do, in order; empty when the run is complete. */
  work: StepWork[];
  /** The training state the first piece of work starts from (null: the base model). */
  startState: string | null;
  /** The last committed training step (0 when none). */
  lastTrainStep: number;
  /** The last committed training step with a saved state (0: none, the base model). */
  stateStep: number;
  /** Committed training steps after `stateStep`, replayed from its state (no state was saved after them). */
  replayed: number[];
}

/** The parts step `step` must have under `schedule`. */
export function partsOf(step: number, schedule: Schedule): StepPart[] {
  const last = step === schedule.steps;
  const parts: StepPart[] = ["train"];
  if (last || step % schedule.saveEvery === 0) parts.push("checkpoint");
  if (last || step % schedule.evalEvery === 0) {
    if (schedule.evalOwnSplit !== false) parts.push("eval");
    for (const suite of schedule.evalSuites ?? []) parts.push(suiteKind(suite.name) as StepPart);
  }
  return parts;
}

/** Whether step `step` saves the full training state: every `stateEvery` steps, at every checkpoint and at the last step. */
export function savesState(step: number, schedule: Schedule): boolean {
  return step === schedule.steps || step % (schedule.stateEvery ?? 1) === 0 || step % schedule.saveEvery === 0;
}

/** The suite a part evaluates (null: not a suite's part). */
export function suiteOfPart(part: StepPart): string | null {
  return suiteOfKind(part);
}

/** Every part the schedule asks for that is not committed, as "eval at step 3" and the like (empty: complete). */
export function missingParts(schedule: Schedule, committed: CommittedParts): string[] {
  const plan = planResume(schedule, committed);
  return plan.work.flatMap((w) => w.parts.map((p) => `${partName(p)} at step ${w.step}`));
}

export function planResume(schedule: Schedule, committed: CommittedParts): ResumePlan {
  const train = new Map(committed.train.map((t) => [t.step, t.statePath]));
  const evals = new Set(committed.eval);
  const checkpoints = new Set(committed.checkpoint);
  const suites = new Map(Object.entries(committed.suites ?? {}).map(([name, steps]) => [name, new Set(steps)]));
  const lastTrainStep = committed.train.reduce((m, t) => Math.max(m, t.step), 0);
  for (let s = 1; s < lastTrainStep; s++) {
    if (!train.has(s)) throw new Error(`cannot resume: training step ${s} is missing although step ${lastTrainStep} is committed`);
  }
  // The resume point: the last committed step with a saved state; the committed steps after it are replayed.
  const stateStep = committed.train.reduce((m, t) => (t.statePath ? Math.max(m, t.step) : m), 0);
  const replayed: number[] = [];
  for (let s = stateStep + 1; s <= lastTrainStep; s++) {
    if (checkpoints.has(s)) throw new Error(`cannot resume: step ${s} has a checkpoint but no saved training state`);
    replayed.push(s);
  }
  const replaying = new Set(replayed);

  const work: StepWork[] = [];
  for (let step = 1; step <= schedule.steps; step++) {
    if (replaying.has(step)) {
      // Its weights were never saved: every part is redone, each replacing what it committed.
      work.push({ step, parts: partsOf(step, schedule), statePath: null, replay: true });
      continue;
    }
    const done = (p: StepPart) => {
      const suite = suiteOfPart(p);
      if (suite !== null) return suites.get(suite)?.has(step) ?? false;
      return p === "train" ? train.has(step) : p === "eval" ? evals.has(step) : checkpoints.has(step);
    };
    const parts = partsOf(step, schedule).filter((p) => !done(p));
    // Once something is left to do, every later step is done in full order from there.
    if (parts.length > 0 || work.length > 0) work.push({ step, parts, statePath: train.get(step) ?? null });
  }
  // Trailing steps with nothing to do (possible only when parts of earlier steps are missing) stay in
  // the list: the executor passes over them without work.
  const first = work[0];
  if (!first) return { work, startState: train.get(lastTrainStep) ?? null, lastTrainStep, stateStep, replayed };

  const fromStep = first.parts.includes("train") ? first.step - 1 : first.step;
  const startState = fromStep === 0 ? null : (train.get(fromStep) ?? null);
  if (fromStep > 0 && !startState) throw new Error(`cannot resume: step ${fromStep} has no saved training state`);
  return { work, startState, lastTrainStep, stateStep, replayed };
}

/** A part in words: "training", "checkpoint", "evaluation", "evaluation suite bfcl". */
export function partName(part: StepPart): string {
  const suite = suiteOfPart(part);
  if (suite !== null) return `evaluation suite ${suite}`;
  return part === "train" ? "training" : part === "eval" ? "evaluation" : "checkpoint";
}

/** "step 4", "steps 4–5". */
function stepsText(steps: readonly number[]): string {
  const a = steps[0]!;
  const b = steps[steps.length - 1]!;
  return a === b ? `step ${a}` : `steps ${a}–${b}`;
}

/** One log line for a resumed run: where it continues, from which state, what it replays, and what follows. */
export function describePlan(plan: ResumePlan): string {
  const first = plan.work[0];
  if (!first) return "every part of every step is committed";
  if (plan.replayed.length > 0 && first.replay) {
    const from = plan.stateStep === 0 ? "the base model" : `the state of step ${plan.stateStep}${plan.startState ? ` (${plan.startState})` : ""}`;
    return `resuming from ${from}; replaying ${stepsText(plan.replayed)} (no state saved)`;
  }
  const full = first.parts.includes("train");
  const head = full
    ? `resuming after committed step ${first.step - 1}${plan.startState ? ` from ${plan.startState}` : ""}`
    : `resuming at step ${first.step} (${first.parts.map(partName).join(", ")})${plan.startState ? ` from ${plan.startState}` : ""}`;
  const replay = plan.replayed.length > 0 ? `; replaying ${stepsText(plan.replayed)} (no state saved)` : "";
  const rest = plan.work.slice(1);
  if (full || rest.length === 0) return head + replay;
  return `${head}${replay}, then ${stepsText(rest.map((w) => w.step))}`;
}
