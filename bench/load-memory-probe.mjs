/**
 * Loaded into the web server by bench:load (`node --expose-gc --import ./bench/load-memory-probe.mjs`),
 * never by the product. On SIGUSR2 it runs a full garbage collection and appends the process's memory
 * after it to BENCH_MEMORY_PROBE_FILE, one JSON line: what the process really keeps, free of where a
 * reading would otherwise land on the heap's collection sawtooth (±150 MB under this load). With
 * BENCH_HEAP_SNAPSHOTS=<dir> it also writes a heap snapshot there, to compare what the heap holds.
 */
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";

const file = process.env.BENCH_MEMORY_PROBE_FILE;
const snapshots = process.env.BENCH_HEAP_SNAPSHOTS;
let taken = 0;
if (file && typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    globalThis.gc();
    const m = process.memoryUsage();
    fs.appendFileSync(file, `${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external })}\n`);
    if (snapshots) v8.writeHeapSnapshot(path.join(snapshots, `web-${++taken}.heapsnapshot`));
  });
}
