/**
 * Port of BFCL's `MemoryAPI_vector` (memory_vector.py): core memory (7 entries of ≤ 300 characters) and
 * archival memory (50 entries of ≤ 2000 characters), each a vector store with integer ids. Retrieval is
 * upstream's: every text is embedded and L2-normalised (sentence-transformers `normalize_embeddings=True`),
 * the index is a flat inner-product index over those unit vectors (faiss `IndexIDMap(IndexFlatIP)`), so the
 * score is the cosine similarity, computed in float32; `retrieve(query, top_k=5)` returns the
 * `min(top_k, len(store))` best entries, best first, as `{"id", "similarity_score", "text"}`.
 *
 * Upstream embeds with all-MiniLM-L6-v2 inside the process; here the vectors come from an embedding node
 * (an OpenAI-compatible `/v1/embeddings`, e.g. vLLM serving that model), through a `TextEmbedder` that
 * answers synchronously from vectors fetched beforehand (`EmbeddingCache.ensure`): the call executor is
 * synchronous, so the world fetches the vectors a call needs before running it (run/memory.ts).
 * A flat index is an exhaustive search, so scoring every stored vector at query time is the same search.
 */
import { pyJsonDumps as pyJsonDumpsIndented } from "../../../../lib/python/json";
import { pyLen } from "../single-turn/pystr";
import { PyDict, pyStr, pyTypeName, type PyValue } from "../single-turn/values";
import { error, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH, MAX_ARCHIVAL_MEMORY_SIZE, MAX_CORE_MEMORY_ENTRY_LENGTH, MAX_CORE_MEMORY_SIZE, MemoryBackend, MemoryPyError, status, type MethodSpec } from "./backends";

/** Unit vectors for texts, answered from vectors already fetched. */
export interface TextEmbedder {
  /** The L2-normalised float32 embedding of `text`; throws `MissingEmbedding` when it was not fetched first. */
  vector(text: string): Float32Array;
}

/**
 * A text the call needs whose vector was not fetched (e.g. upstream's call-string rewriting changed the text:
 * `"LDL (bad"` is stored as `"LDL(bad"`). The back end mutates nothing before asking for a vector, so the
 * caller fetches it and runs the call again.
 */
export class MissingEmbedding extends Error {
  constructor(readonly text: string) {
    super(`no embedding fetched for a text of ${text.length} characters (EmbeddingCache.ensure first)`);
  }
}

/** L2-normalises as sentence-transformers does (`x / max(‖x‖, 1e-12)`), in float32. */
export function normalise(v: readonly number[]): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.max(Math.sqrt(sum), 1e-12);
  return Float32Array.from(v, (x) => x / norm);
}

/** float32 inner product (faiss's IndexFlatIP score) as the Python float upstream returns. */
export function innerProduct(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`embedding dimensions differ (${a.length} and ${b.length}): the embedding node must return one dimension`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s = Math.fround(s + Math.fround(a[i] * b[i]));
  return s;
}

/**
 * Embeddings fetched in batches and kept per text for the run (the model is deterministic, so a text's
 * vector never changes); `vector` answers synchronously from what `ensure` fetched.
 */
export class EmbeddingCache implements TextEmbedder {
  private readonly vectors = new Map<string, Float32Array>();
  private pending = new Map<string, Promise<void>>();

  constructor(private readonly fetchBatch: (texts: string[]) => Promise<number[][]>) {}

  async ensure(texts: readonly string[]): Promise<void> {
    const missing = [...new Set(texts)].filter((t) => !this.vectors.has(t) && !this.pending.has(t));
    if (missing.length > 0) {
      const batch = this.fetchBatch(missing).then((vecs) => {
        if (vecs.length !== missing.length) throw new Error(`the embedding node returned ${vecs.length} vectors for ${missing.length} texts`);
        missing.forEach((t, i) => this.vectors.set(t, normalise(vecs[i])));
      });
      const settled = batch.finally(() => missing.forEach((t) => this.pending.delete(t)));
      for (const t of missing) this.pending.set(t, settled);
    }
    await Promise.all([...new Set(texts)].map((t) => this.pending.get(t)).filter((p): p is Promise<void> => p !== undefined));
  }

  vector(text: string): Float32Array {
    const v = this.vectors.get(text);
    if (!v) throw new MissingEmbedding(text);
    return v;
  }
}

export interface VectorStoreSnapshot {
  next_id: number;
  /** id → text, in the store's order (upstream's `_store` dict). */
  store: [number, string][];
}

/** The id a Python value names in the store (`vec_id in self._store`: 1, 1.0 and True are the same key). */
function storeKey(v: PyValue): number | undefined {
  if (Array.isArray(v) || v instanceof PyDict) throw new MemoryPyError("TypeError", `unhashable type: '${pyTypeName(v)}'`);
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" && Number.isInteger(v)) return v;
  return undefined;
}

/** `len(text)`, which upstream calls before embedding. */
function textLength(v: PyValue): number {
  if (typeof v === "string") return pyLen(v);
  if (Array.isArray(v)) return v.length;
  throw new MemoryPyError("TypeError", `object of type '${pyTypeName(v)}' has no len()`);
}

function requireText(v: PyValue): string {
  if (typeof v !== "string") throw new MemoryPyError("TypeError", `the embedding model takes text, not '${pyTypeName(v)}'`);
  return v;
}

/** `VectorStore`: ids are sequential and never reused until `clear`. */
export class VectorStore {
  private store = new Map<number, string>();
  /** The order of vectors in the flat index (add appends, update removes and re-adds): faiss keeps the first of equal scores. */
  private order: number[] = [];
  private nextId = 0;

  constructor(
    readonly maxSize: number,
    readonly maxEntryLength: number,
    private readonly embedder: TextEmbedder,
  ) {}

  texts(): string[] {
    return [...this.store.values()];
  }

  add(textValue: PyValue): PyValue {
    if (textLength(textValue) > this.maxEntryLength) return error(`Entry length exceeds maximum length of ${this.maxEntryLength} characters.`);
    if (this.store.size >= this.maxSize) return error(`Memory size exceeds maximum size of ${this.maxSize} entries.`);
    const text = requireText(textValue);
    this.embedder.vector(text); // before any change: a missing vector is fetched and the call run again
    const id = this.nextId++;
    this.store.set(id, text);
    this.order.push(id);
    return PyDict.fromObject({ id: BigInt(id) });
  }

  remove(vecId: PyValue): PyValue {
    const id = storeKey(vecId);
    if (id === undefined || !this.store.has(id)) return error(`ID ${pyStr(vecId)} not present in store.`);
    this.store.delete(id);
    this.order = this.order.filter((x) => x !== id);
    return status(`ID ${pyStr(vecId)} removed from store.`);
  }

  update(vecId: PyValue, newText: PyValue): PyValue {
    const id = storeKey(vecId);
    if (id === undefined || !this.store.has(id)) return error(`ID ${pyStr(vecId)} not present in store.`);
    if (textLength(newText) > this.maxEntryLength) return error(`Entry length exceeds maximum length of ${this.maxEntryLength} characters.`);
    const text = requireText(newText);
    this.embedder.vector(text);
    this.order = [...this.order.filter((x) => x !== id), id];
    this.store.set(id, text);
    return status(`ID ${pyStr(vecId)} updated.`);
  }

  clear(): PyValue {
    this.store.clear();
    this.order = [];
    this.nextId = 0;
    return status("Memory cleared.");
  }

  retrieve(query: PyValue, topK: PyValue): PyValue[] {
    if (this.store.size === 0) return [];
    const q = this.embedder.vector(requireText(query));
    if (topK === null) throw new MemoryPyError("TypeError", "'<' not supported between instances of 'int' and 'NoneType'");
    if (typeof topK !== "bigint" && typeof topK !== "boolean") throw new MemoryPyError("TypeError", `'${pyTypeName(topK)}' object cannot be interpreted as an integer`);
    const k = Math.min(Number(topK), this.store.size);
    if (k <= 0) throw new MemoryPyError("RuntimeError", "Error: 'k > 0' failed");
    const scored = this.order.map((id, position) => ({ id, position, score: innerProduct(q, this.embedder.vector(this.store.get(id)!)) }));
    scored.sort((a, b) => b.score - a.score || a.position - b.position);
    return scored.slice(0, k).map((r) => PyDict.fromObject({ id: BigInt(r.id), similarity_score: r.score, text: this.store.get(r.id)! }));
  }

  retrieveAll(): PyValue[] {
    return [...this.store.entries()].map(([id, text]) => PyDict.fromObject({ id: BigInt(id), text }));
  }

  snapshot(): VectorStoreSnapshot {
    return { next_id: this.nextId, store: [...this.store.entries()] };
  }

  /** `load_from_snapshot`: the texts are re-embedded and the index rebuilt in id order. */
  restore(s: VectorStoreSnapshot | null): void {
    this.nextId = s?.next_id ?? 0;
    this.store = new Map(s?.store ?? []);
    this.order = [...this.store.keys()].sort((a, b) => a - b);
  }

  /** `json.dumps(self._store, indent=4)`: int keys become strings. */
  contextText(): string {
    return pyJsonDumpsIndented(new Map([...this.store.entries()].map(([id, text]) => [String(id), text])), { indent: 4 });
  }
}

export interface VectorSnapshot {
  core_memory: VectorStoreSnapshot;
  archival_memory: VectorStoreSnapshot;
}

/** `MemoryAPI_vector`. */
export class MemoryVector extends MemoryBackend {
  readonly className = "MemoryAPI_vector";
  readonly coreMemory: VectorStore;
  readonly archivalMemory: VectorStore;

  constructor(embedder: TextEmbedder) {
    super();
    this.coreMemory = new VectorStore(MAX_CORE_MEMORY_SIZE, MAX_CORE_MEMORY_ENTRY_LENGTH, embedder);
    this.archivalMemory = new VectorStore(MAX_ARCHIVAL_MEMORY_SIZE, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH, embedder);
  }

  /** Every text a call may need embedded: its string arguments and everything stored. */
  textsToEmbed(args: readonly PyValue[]): string[] {
    return [...args.filter((a): a is string => typeof a === "string"), ...this.coreMemory.texts(), ...this.archivalMemory.texts()];
  }

  restore(snapshot: VectorSnapshot | null): void {
    this.coreMemory.restore(snapshot?.core_memory ?? null);
    this.archivalMemory.restore(snapshot?.archival_memory ?? null);
  }

  snapshot(): VectorSnapshot {
    return { core_memory: this.coreMemory.snapshot(), archival_memory: this.archivalMemory.snapshot() };
  }

  /** Upstream's `_dump_core_memory_to_context` (a VectorStore is always truthy, so an empty one shows `{}`). */
  contextText(): string {
    return this.coreMemory.contextText();
  }

  protected readonly methods: Record<string, MethodSpec> = {
    core_memory_add: { params: [{ name: "text" }], run: (text) => this.coreMemory.add(text) },
    core_memory_remove: { params: [{ name: "vec_id" }], run: (id) => this.coreMemory.remove(id) },
    core_memory_update: { params: [{ name: "vec_id" }, { name: "new_text" }], run: (id, text) => this.coreMemory.update(id, text) },
    core_memory_clear: { params: [], run: () => this.coreMemory.clear() },
    core_memory_retrieve: { params: [{ name: "query" }, { name: "top_k", default: 5n }], run: (q, k) => PyDict.fromObject({ result: this.coreMemory.retrieve(q, k) }) },
    core_memory_retrieve_all: { params: [], run: () => PyDict.fromObject({ result: this.coreMemory.retrieveAll() }) },
    archival_memory_add: { params: [{ name: "text" }], run: (text) => this.archivalMemory.add(text) },
    archival_memory_remove: { params: [{ name: "vec_id" }], run: (id) => this.archivalMemory.remove(id) },
    archival_memory_update: { params: [{ name: "vec_id" }, { name: "new_text" }], run: (id, text) => this.archivalMemory.update(id, text) },
    archival_memory_clear: { params: [], run: () => this.archivalMemory.clear() },
    archival_memory_retrieve: { params: [{ name: "query" }, { name: "top_k", default: 5n }], run: (q, k) => PyDict.fromObject({ result: this.archivalMemory.retrieve(q, k) }) },
    archival_memory_retrieve_all: { params: [], run: () => PyDict.fromObject({ result: this.archivalMemory.retrieveAll() }) },
  };
}
