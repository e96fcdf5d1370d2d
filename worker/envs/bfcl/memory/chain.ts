/**
 * How memory carries over between the entries of a scenario, as upstream's harness does with its snapshot
 * files: the first prerequisite entry (`…-0`) starts from an empty memory, each later prerequisite entry
 * starts from the snapshot the previous one left (upstream flushes after every prerequisite entry only), and
 * every question starts from the final prerequisite snapshot (what a question does to memory is not kept).
 * Pure: snapshots are values kept in this object; the caller may persist them.
 */
import { createMemoryBackend, type KvSnapshot, type MemoryKv, type MemoryRecSum, type RecSumSnapshot } from "./backends";
import { backendClassOf, type MemoryCategory, type MemoryScenario } from "./data";
import type { MemoryVector, VectorSnapshot } from "./vector";

type Snapshot = KvSnapshot | RecSumSnapshot | VectorSnapshot;
export type ChainBackend = MemoryKv | MemoryRecSum | MemoryVector;

/** Upstream's `is_first_memory_prereq_entry`. */
export const isFirstPrereqEntry = (id: string) => id.includes("prereq") && id.endsWith("-0");

export class MemoryChain {
  private readonly latest = new Map<MemoryScenario, Snapshot>();
  /** Entries that expected a snapshot and found none (upstream warns and starts empty). */
  readonly warnings: string[] = [];

  constructor(
    readonly category: MemoryCategory,
    /** A fresh back end (memory_vector's needs its embedder); default: kv or rec_sum by the category. */
    private readonly create: () => ChainBackend = () => createMemoryBackend(backendClassOf(category)),
  ) {}

  private fresh(): ChainBackend {
    return this.create();
  }

  private restored(id: string, scenario: MemoryScenario): ChainBackend {
    const backend = this.fresh();
    const snapshot = isFirstPrereqEntry(id) ? undefined : this.latest.get(scenario);
    if (!isFirstPrereqEntry(id) && snapshot === undefined) this.warnings.push(`${id}: no memory snapshot for scenario ${scenario}; the memory starts empty`);
    (backend as { restore(s: Snapshot | null): void }).restore(snapshot ?? null);
    return backend;
  }

  /** The back end a prerequisite entry runs on. */
  forPrereq(id: string, scenario: MemoryScenario): ChainBackend {
    return this.restored(id, scenario);
  }

  /** Records the memory a prerequisite entry left (upstream's `_flush_memory_to_local_file`). */
  finishPrereq(scenario: MemoryScenario, backend: ChainBackend): void {
    this.latest.set(scenario, backend.snapshot());
  }

  /** The back end a question runs on: the final prerequisite memory of its scenario. */
  forQuestion(id: string, scenario: MemoryScenario): ChainBackend {
    return this.restored(id, scenario);
  }
}
