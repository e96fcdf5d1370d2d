import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import superjson from "superjson";
import { LiveReads, MAX_AGE_MS, sharedResultTransformer } from "./live-reads";
import { withSplicing } from "./spliced-json";

/** A change feed double: an emitter with the feed's connection state. */
function feedDouble(connected: boolean) {
  return Object.assign(new EventEmitter(), { connected });
}

function attached() {
  const reads = new LiveReads();
  const feed = feedDouble(true);
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

  it("shares nothing before its change feed is connected, while it is down, nor across a resync", async () => {
    const reads = new LiveReads();
    let loads = 0;
    const read = () => reads.read("runs.get", { id: "r1" }, ["run:r1"], async () => ++loads);
    await read();
    expect(await read()).toBe(2); // not attached

    const feed = feedDouble(false);
    reads.attach(feed);
    await read();
    expect(await read()).toBe(4); // attached, LISTEN not up yet
    feed.connected = true;
    feed.emit("up");
    await read();
    expect(await read()).toBe(5);
    feed.emit("resync");
    expect(await read()).toBe(6);
    feed.emit("down");
    await read();
    expect(await read()).toBe(8);
  });
});

describe("the tRPC transformer", () => {
  it("serialises a shared result once and gives superjson's own output", () => {
    const shared = { items: [{ id: "r1", createdAt: new Date(0), metrics: { "reward/mean": 0.5 } }] };
    const stringify = vi.spyOn(JSON, "stringify");
    const first = sharedResultTransformer.serialize(shared);
    expect(stringify).not.toHaveBeenCalled(); // outside an HTTP answer no JSON text is made
    stringify.mockRestore();
    expect(first).toEqual(superjson.serialize(shared));
    expect(sharedResultTransformer.serialize(shared)).toBe(first); // the same walk, not a new one
    expect(sharedResultTransformer.serialize({ ...shared })).not.toBe(first);
    expect(sharedResultTransformer.serialize(3)).toEqual(superjson.serialize(3));
    expect(sharedResultTransformer.deserialize(first as ReturnType<typeof superjson.serialize>)).toEqual(shared);
  });

  it("inside an HTTP answer, puts a shared result's one JSON text into every body", async () => {
    const shared = { series: [{ key: "loss", points: [{ step: 1, mean: 0.25 }] }], at: new Date(0) };
    const stringify = vi.spyOn(JSON, "stringify");
    const answer = () =>
      withSplicing(async () => {
        const data = sharedResultTransformer.serialize(shared);
        expect(typeof data).toBe("string"); // a placeholder, not the object
        return new Response(JSON.stringify([{ result: { data } }, { result: { data: sharedResultTransformer.serialize("plain ✓") } }]), { headers: { "content-type": "application/json", "content-length": "1" } });
      });
    const bodies = [];
    for (let i = 0; i < 3; i++) {
      const res = await answer();
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(res.headers.get("content-length")).toBe(String(bytes.byteLength)); // the spliced body's own length
      bodies.push(new TextDecoder().decode(bytes));
    }
    const withShared = stringify.mock.calls.filter(([v]) => v === sharedResultTransformer.serialize(shared) || (v as { json?: unknown })?.json === shared);
    stringify.mockRestore();
    expect(withShared).toHaveLength(1); // the shared object became text once, not once per answer
    for (const body of bodies) {
      expect(body).not.toMatch(/__envace_json_/);
      const [first, second] = JSON.parse(body);
      expect(sharedResultTransformer.deserialize(first.result.data)).toEqual(shared);
      expect(sharedResultTransformer.deserialize(second.result.data)).toBe("plain ✓");
    }
  });
});
