/**
 * The seq-id sequencer of one training model: every op gets the next seq_id (the first is 1) when it is
 * posted, ops are posted strictly one after another in call order, and a rejected POST (4xx) does not
 * consume its seq_id. Results are awaited outside, in parallel (pipelining). A request whose outcome stays
 * unknown after retries breaks the sequence: later ops fail at once (the run resumes on a fresh model).
 */
import { TinkerError } from "./errors";

export class SeqIdSequencer {
  private nextSeq = 1;
  private chain: Promise<unknown> = Promise.resolve();
  private broken: string | null = null;

  constructor(
    private readonly modelId: string,
    private readonly nodeName: string,
  ) {}

  /** seq_id the next op will carry. */
  get pending(): number {
    return this.nextSeq;
  }

  /**
   * Runs `post` on the model's submission chain with the next seq_id. The seq_id is consumed only
   * when the server accepted the request; `post` may ask for more seq_ids (chunks) through `take`.
   */
  enqueue<T>(post: (take: () => number, commit: () => void) => Promise<T>): Promise<T> {
    const run = this.chain.then(async () => {
      if (this.broken) throw new TinkerError(this.broken, null, "transport", false, "model_broken", "transport");
      let taken = 0;
      const take = () => this.nextSeq + taken++;
      const commit = () => {
        this.nextSeq += taken;
        taken = 0;
      };
      try {
        return await post(take, commit);
      } catch (e) {
        const err = e as TinkerError;
        if (err instanceof TinkerError && (err.kind === "transport" || (err.status ?? 0) >= 500))
          this.broken = `model ${this.modelId} on node "${this.nodeName}": a request's outcome is unknown after retries (${err.message}); resume the run`;
        throw e;
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

}
