import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LiveReads, MAX_AGE_MS } from "./live-reads";

function attached() {
  const reads = new LiveReads();
  const feed = new EventEmitter();
  reads.attach(feed);
  return { reads, feed };
}

describe("shared live reads", () => {
  afterEach(() => vi.useRealTimers());

  it("loads once for identical reads, in flight and afterwards", async () => {
    const { reads } = attached();
    let loads = 0;
    const load = async () => ({ n: ++loads });
    const [a, b] = await Promise.all([reads.read("runs.get", { id: "r1" }, ["run:r1"], load), reads.read("runs.get", { id: "r1" }, ["run:r1"], load)]);
    expect(a).toBe(b);
    expect(await reads.read("runs.get", { id: "r1" }, ["run:r1"], load)).toEqual({ n: 1 });
    expect(await reads.read("runs.get", { id: "r2" }, ["run:r2"], load)).toEqual({ n: 2 }); // another input
    expect(loads).toBe(2);
  });

  it("drops an entry the moment a signal about what it shows arrives, and only then", async () => {
    const { reads, feed } = attached();
    let loads = 0;
    const load = async () => ++loads;
    await reads.read("metrics.series", { runId: "r1" }, ["step:r1"], load);
    feed.emit("change", { t: "step", id: "r2" }); // another run
    feed.emit("change", { t: "run", id: "r1" }); // another kind of change
    expect(await reads.read("metrics.series", { runId: "r1" }, ["step:r1"], load)).toBe(1);
    feed.emit("change", { t: "step", id: "r1" });
    expect(await reads.read("metrics.series", { runId: "r1" }, ["step:r1"], load)).toBe(2);
    await reads.read("runs.list", { limit: 50 }, ["run:*"], load);
    feed.emit("change", { t: "run", id: "any-run" });
    expect(await reads.read("runs.list", { limit: 50 }, ["run:*"], load)).toBe(4);
  });

  it("does not keep a failed load, nor anything after its maximum age", async () => {
    vi.useFakeTimers();
    const { reads } = attached();
    let loads = 0;
    await expect(reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => Promise.reject(new Error(`fail ${++loads}`)))).rejects.toThrow("fail 1");
    expect(await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads)).toBe(2);
    vi.advanceTimersByTime(MAX_AGE_MS + 1);
    expect(await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads)).toBe(3);
  });

  it("shares nothing while not attached to a change feed, or after it went down or resynced", async () => {
    const reads = new LiveReads();
    let loads = 0;
    await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads);
    expect(await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads)).toBe(2);

    const feed = new EventEmitter();
    reads.attach(feed);
    await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads);
    feed.emit("resync");
    expect(await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads)).toBe(4);
    feed.emit("down");
    expect(await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads)).toBe(5);
    expect(await reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads)).toBe(6);
  });
});
