/**
 * The run's status detail while a step's evaluations run: their episodes counted (in twentieths), unless
 * a node restart is being waited out — then the restart's own detail stays until the part resumes.
 */
import type { RunContext } from "../context";

export class PartProgress {
  /** The detail a node restart set (null: none being waited out). */
  private nodeDetail: string | null = null;
  /** The context node restarts report through (its detail wins over the episode count). */
  readonly report: RunContext;

  constructor(private readonly ctx: RunContext) {
    this.report = { ...ctx, detail: (text) => ((this.nodeDetail = text), ctx.detail(text)) };
  }

  /** An onRolloutDone callback counting `what`'s episodes into the status detail. */
  episodes(what: string) {
    let shown = 0;
    return (done: number, total: number) => {
      if (this.nodeDetail !== null || (done < total && done - shown < Math.max(1, Math.floor(total / 20)))) return;
      shown = done;
      void this.ctx.detail(`${what}: ${done} of ${total} episodes`).catch(() => {});
    };
  }

  /** Clears the episode count once an evaluation is committed (a node restart's detail stays). */
  async done(): Promise<void> {
    if (this.nodeDetail === null) await this.ctx.detail(null);
  }
}
