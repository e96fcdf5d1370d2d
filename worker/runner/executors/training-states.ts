/**
 * The training state after each step: the committed ones when the attempt starts, then each one this
 * attempt saves. A step saves the full state only every `schedule.stateEvery` steps, at checkpoints and at
 * the last step (../resume.ts `savesState`); after any other step its weights live only in the open
 * session on the node ("unsaved"), so a part that starts from them runs on that session or not at all:
 * once the node restarted they are gone, and the attempt resumes from the last saved state instead,
 * replaying the steps after it (`UnsavedWeightsLost`, ./train.ts).
 *
 * Training states persist only at checkpoints: each saved state is kept until the next saved state
 * commits (resuming, and retrying after a node restart, need only the last committed one), then deleted
 * on the node.
 */
import type { CommittedParts } from "../resume";

/** A part was to start from weights that were never saved and that the node no longer holds (it restarted). */
export class UnsavedWeightsLost extends Error {
  constructor(
    readonly step: number,
    readonly stateStep: number,
  ) {
    super(`the weights after step ${step} were not saved (schedule.stateEvery) and the restarted node no longer holds them`);
    this.name = "UnsavedWeightsLost";
  }
}

export class TrainingStates {
  private readonly byStep = new Map<number, string | null>([[0, null]]);
  /** Steps committed in this attempt without a saved state, after the last saved one. */
  private readonly unsavedSteps = new Set<number>();
  private previous: { path: string; checkpoint: boolean } | null = null;
  private lastSaved = 0;

  constructor(
    private readonly runId: string,
    committed: CommittedParts,
  ) {
    for (const t of committed.train) if (t.statePath) this.byStep.set(t.step, t.statePath);
    this.lastSaved = Math.max(...this.byStep.keys());
  }

  /** The name a step's state (and its checkpoint's sampler weights) is saved under on the node. */
  name(step: number): string {
    return `${this.runId.slice(0, 8)}-step-${step}`;
  }

  /** The state after `step` (null: the base model; undefined: not known, or not saved: see `unsaved`). */
  after(step: number): string | null | undefined {
    return this.byStep.get(step);
  }

  /** Whether `step` committed in this attempt without a saved state (its weights are only in the open session). */
  unsaved(step: number): boolean {
    return this.unsavedSteps.has(step);
  }

  /** The last step with a saved state (0: the base model). */
  lastSavedStep(): number {
    return this.lastSaved;
  }

  /** What a part that starts after `step` starts from, in words. */
  describe(step: number): string {
    if (this.unsaved(step))
      return `${this.lastSaved === 0 ? "the base model" : `the state of step ${this.lastSaved}`}, replaying step${step - this.lastSaved > 1 ? `s ${this.lastSaved + 1}–${step}` : ` ${step}`} (no state saved)`;
    return step === 0 ? "the base model" : `the committed state of step ${step}`;
  }

  /**
   * Records a committed training step and the state it saved (null: none); returns the previous saved
   * state when it is now stale (not a checkpoint), for the caller to delete on the node.
   */
  committed(step: number, path: string | null, checkpoint: boolean): string | null {
    if (path === null) {
      this.unsavedSteps.add(step);
      return null;
    }
    this.byStep.set(step, path);
    this.unsavedSteps.clear();
    this.lastSaved = step;
    const stale = this.previous && !this.previous.checkpoint ? this.previous.path : null;
    this.previous = { path, checkpoint };
    return stale;
  }

  /** The unsaved weights are gone (the node restarted): the attempt replays from the last saved state. */
  forgetUnsaved(): void {
    this.unsavedSteps.clear();
  }
}
