/** A counting semaphore: at most `size` holders; waiters queue in order and may give up through an AbortSignal. */
export class Slots {
  private held = 0;
  private waiting: { grant: () => void; fail: (e: unknown) => void }[] = [];

  constructor(readonly size: number) {}

  get inUse(): number {
    return this.held;
  }

  /** Wait for a slot; resolves with its release function (idempotent). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.held++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.held--;
          this.waiting.shift()?.grant();
        });
      };
      const entry = { grant, fail: reject };
      const onAbort = () => {
        this.waiting = this.waiting.filter((w) => w !== entry);
        reject(signal?.reason ?? new Error("aborted"));
      };
      if (this.held < this.size) return grant();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(entry);
    });
  }
}
