/**
 * Futures: every op answers a request_id at once and settles later; retrieve_future long-polls it.
 * Test mode `minFutureMs` keeps each future pending at least that long. At most 10k settled futures are kept.
 */
import { UserError } from "../protocol";
import { TrainingInputError } from "../train";
import { type FutureRecord, type NodeState, newId } from "./state";

export function newFuture(st: NodeState, type: string): FutureRecord {
  const f: FutureRecord = { id: newId("req"), type, state: "pending", waiters: new Set(), createdAt: Date.now() };
  st.futures.set(f.id, f);
  pruneFutures(st);
  return f;
}

export function settle(st: NodeState, f: FutureRecord, outcome: { result: unknown } | { error: unknown }): void {
  const wait = f.createdAt + st.opts.minFutureMs - Date.now();
  if (wait > 0) {
    setTimeout(() => settle(st, f, outcome), wait).unref();
    return;
  }
  if ("result" in outcome) {
    f.state = "done";
    f.result = outcome.result;
  } else {
    const e = outcome.error;
    f.state = "failed";
    f.error = e instanceof Error ? e.message : String(e);
    f.category = e instanceof UserError || e instanceof TrainingInputError ? "user" : "server";
    if (f.category === "server") console.error(`[node] ${f.type} ${f.id} failed:`, e);
  }
  for (const w of f.waiters) w();
  f.waiters.clear();
}

/** Keep at most 10k settled futures (oldest dropped). */
function pruneFutures(st: NodeState): void {
  if (st.futures.size <= 10_000) return;
  for (const [id, f] of st.futures) {
    if (st.futures.size <= 9_000) break;
    if (f.state !== "pending") st.futures.delete(id);
  }
}

/** Long-polls a future: its record when settled, or null after `waitMs`. */
export async function retrieveFuture(st: NodeState, id: string, waitMs: number): Promise<FutureRecord | null> {
  const f = st.futures.get(id);
  if (!f) throw new UserError(`unknown request_id '${id}'`, 404, "unknown_request");
  if (f.state !== "pending") return f;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, waitMs);
    function done() {
      clearTimeout(timer);
      f!.waiters.delete(done);
      resolve();
    }
    f.waiters.add(done);
  });
  return f.state === "pending" ? null : f;
}

/** Runs an async op under a new future (no ordering). */
export function detached(st: NodeState, type: string, run: () => Promise<unknown>): { request_id: string } {
  const f = newFuture(st, type);
  run().then(
    (result) => settle(st, f, { result }),
    (error) => settle(st, f, { error }),
  );
  return { request_id: f.id };
}
