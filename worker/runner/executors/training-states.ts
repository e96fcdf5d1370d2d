/**
 * The training state after each step: the committed ones when the attempt starts, then each one this
 * attempt saves. Training states persist only at checkpoints: each step's state is kept until the next
 * step commits (resuming, and retrying after a node restart, need only the last committed one), then
 * deleted on the node.
 */
import type { CommittedParts } from "../resume";

export class TrainingStates {
  private readonly byStep = new Map<number, string | null>([[0, null]]);
  private previous: { path: string; checkpoint: boolean } | null = null;

  constructor(
    private readonly runId: string,
    committed: CommittedParts,
  ) {
    for (const t of committed.train) if (t.statePath) this.byStep.set(t.step, t.statePath);
  }

  /** The name a step's state (and its checkpoint's sampler weights) is saved under on the node. */
  name(step: number): string {
    return `${this.runId.slice(0, 8)}-step-${step}`;
  }

  /** The state after `step` (null: the base model; undefined: not known). */
  after(step: number): string | null | undefined {
    return this.byStep.get(step);
  }

  /** What a part that starts after `step` starts from, in words. */
  describe(step: number): string {
    return step === 0 ? "the base model" : `the committed state of step ${step}`;
  }

  /**
   * Records the state a committed training step saved; returns the previous step's state when it is
   * now stale (not a checkpoint), for the caller to delete on the node.
   */
  committed(step: number, path: string, checkpoint: boolean): string | null {
    this.byStep.set(step, path);
    const stale = this.previous && !this.previous.checkpoint ? this.previous.path : null;
    this.previous = { path, checkpoint };
    return stale;
  }
}
