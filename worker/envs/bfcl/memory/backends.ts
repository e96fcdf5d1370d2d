/**
 * Ports of BFCL's memory back ends `MemoryAPI_kv` (memory_kv.py: core and archival key-value memory with
 * BM25+ key search) and `MemoryAPI_rec_sum` (memory_rec_sum.py: one text memory kept by recursive
 * summarisation). Every public method returns what upstream returns, and `execute` gives the exact text
 * upstream's `execute_multi_turn_func_call` turns it into: a dict through `json.dumps`, a Python exception as
 * `Error during execution: <message>` (argument binding errors with CPython 3.11's texts).
 *
 * Upstream keeps memory between the entries of a scenario in snapshot files (`<scenario>_final.json`); here a
 * snapshot is a plain value (`snapshot()` / `restore()`), so the caller decides where it lives.
 * `MemoryAPI_vector` is in vector.ts (its embeddings come from a node).
 */
import { pyJsonDumps as pyJsonDumpsIndented } from "../../../../lib/python/json";
import { PY_SPACE, pyLen, pyRe } from "../single-turn/pystr";
import { PyDict, pyJsonDumps, pyStr, PyTuple, pyTypeName, type PyValue } from "../single-turn/values";
import { Bm25Plus, ZeroDivisionError } from "./bm25";

export const MAX_CORE_MEMORY_SIZE = 7;
export const MAX_CORE_MEMORY_ENTRY_LENGTH = 300;
export const MAX_ARCHIVAL_MEMORY_SIZE = 50;
export const MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH = 2000;
export const MAX_MEMORY_ENTRY_LENGTH = 10000;

/** A Python exception raised inside a back end (its `str()` is `message`). */
export class MemoryPyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

export interface MethodSpec {
  params: { name: string; default?: PyValue }[];
  run: (...args: PyValue[]) => PyValue;
}

const quoteNames = (names: string[]) => {
  const q = names.map((n) => `'${n}'`);
  return q.length === 1 ? q[0] : q.length === 2 ? `${q[0]} and ${q[1]}` : `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
};

/** What both back ends share: Python-style method binding and upstream's result-to-text rule. */
export abstract class MemoryBackend {
  abstract readonly className: "MemoryAPI_kv" | "MemoryAPI_rec_sum" | "MemoryAPI_vector";
  protected abstract readonly methods: Record<string, MethodSpec>;

  methodNames(): string[] {
    return Object.keys(this.methods);
  }

  /** Calls a public method with positional and keyword arguments, binding them as CPython 3.11 does. */
  call(name: string, args: readonly PyValue[] = [], kwargs: readonly [string, PyValue][] = []): PyValue {
    const spec = this.methods[name];
    if (!spec) throw new MemoryPyError("AttributeError", `'${this.className}' object has no attribute '${name}'`);
    const qual = `${this.className}.${name}()`;
    const n = spec.params.length;
    if (args.length > n) {
      const min = spec.params.filter((p) => !("default" in p)).length + 1;
      const max = n + 1;
      const takes = min === max ? `${max} positional argument${max === 1 ? "" : "s"}` : `from ${min} to ${max} positional arguments`;
      throw new MemoryPyError("TypeError", `${qual} takes ${takes} but ${args.length + 1} were given`);
    }
    const bound: (PyValue | undefined)[] = spec.params.map((_, i) => (i < args.length ? args[i] : undefined));
    for (const [key, value] of kwargs) {
      const i = spec.params.findIndex((p) => p.name === key);
      if (i < 0) throw new MemoryPyError("TypeError", `${qual} got an unexpected keyword argument '${key}'`);
      if (bound[i] !== undefined) throw new MemoryPyError("TypeError", `${qual} got multiple values for argument '${key}'`);
      bound[i] = value;
    }
    const missing = spec.params.filter((p, i) => bound[i] === undefined && !("default" in p)).map((p) => p.name);
    if (missing.length > 0) {
      throw new MemoryPyError("TypeError", `${qual} missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${quoteNames(missing)}`);
    }
    return spec.run(...spec.params.map((p, i) => (bound[i] !== undefined ? bound[i]! : p.default!)));
  }

  /** The text upstream's executor returns for this call. */
  execute(name: string, args: readonly PyValue[] = [], kwargs: readonly [string, PyValue][] = []): string {
    try {
      const result = this.call(name, args, kwargs);
      if (typeof result === "string") return result;
      if (result instanceof PyDict) return pyJsonDumps(result);
      return pyStr(result);
    } catch (err) {
      if (err instanceof MemoryPyError || err instanceof ZeroDivisionError) return `Error during execution: ${err.message}`;
      throw err;
    }
  }

  /** Upstream's `_dump_core_memory_to_context`: what the system prompt shows of the memory. */
  abstract contextText(): string;
}

export const status = (text: string) => PyDict.fromObject({ status: text });
export const error = (text: string) => PyDict.fromObject({ error: text });

/** `str.split()` with Python's whitespace. */
const pySplit = (s: string): string[] => s.split(pyRe(`${PY_SPACE}+`)).filter((t) => t !== "");
const tokenize = (text: string): string[] => pySplit(text.replace(/_/g, " ").toLowerCase());

/** `x.replace(...)` on a non-str raises AttributeError in upstream's search. */
function requireStr(v: PyValue, attr: string): string {
  if (typeof v !== "string") throw new MemoryPyError("AttributeError", `'${pyTypeName(v)}' object has no attribute '${attr}'`);
  return v;
}

/** `seq[:k]` with Python's slice rules (negative k counts from the end; None keeps all). */
function sliceTo<T>(items: T[], k: PyValue): T[] {
  if (k === null) return items;
  if (typeof k !== "bigint" && typeof k !== "boolean") {
    throw new MemoryPyError("TypeError", "slice indices must be integers or None or have an __index__ method");
  }
  const n = Number(typeof k === "boolean" ? (k ? 1n : 0n) : k);
  return n >= 0 ? items.slice(0, n) : items.slice(0, Math.max(0, items.length + n));
}

/** `dict[key]` membership with Python's hashability rule. */
function hashable(key: PyValue): PyValue {
  if (Array.isArray(key) || key instanceof PyDict) throw new MemoryPyError("TypeError", `unhashable type: '${pyTypeName(key)}'`);
  return key;
}

const VALID_KEY = /^[a-z]+(_[a-z0-9]+)*\n?$/;

export interface KvSnapshot {
  core_memory: [string, string][];
  archival_memory: [string, string][];
}

/** `MemoryAPI_kv`. */
export class MemoryKv extends MemoryBackend {
  readonly className = "MemoryAPI_kv";
  coreMemory = new PyDict();
  archivalMemory = new PyDict();

  /** Starts from a snapshot (later entries of a scenario), or empty (the first prerequisite entry). */
  restore(snapshot: KvSnapshot | null): void {
    this.coreMemory = PyDict.of(snapshot?.core_memory ?? []);
    this.archivalMemory = PyDict.of(snapshot?.archival_memory ?? []);
  }

  snapshot(): KvSnapshot {
    const pairs = (d: PyDict) => d.entries().map(([k, v]) => [k as string, v as string] as [string, string]);
    return { core_memory: pairs(this.coreMemory), archival_memory: pairs(this.archivalMemory) };
  }

  contextText(): string {
    if (this.coreMemory.size === 0) return "There is no content in the core memory at this point.";
    return pyJsonDumpsIndented(new Map(this.coreMemory.entries().map(([k, v]) => [k as string, v])), { indent: 4 });
  }

  /** `_similarity_search`: the k best keys by BM25+ score, best first (ties keep memory order). */
  static similaritySearch(query: PyValue, corpus: string[], k: PyValue): PyDict {
    const bm25 = new Bm25Plus(corpus.map(tokenize));
    const scores = bm25.getScores(tokenize(requireStr(query, "replace")));
    const ranked = scores.map((score, i) => ({ score, key: corpus[i] })).sort((a, b) => b.score - a.score);
    return PyDict.fromObject({ ranked_results: sliceTo(ranked, k).map((r) => new PyTuple([r.score, r.key])) });
  }

  private add(store: PyDict, max: number, maxLength: number, fullMessage: string, addedMessage: string, key: PyValue, value: PyValue): PyValue {
    const k = pyStr(key);
    const v = pyStr(value);
    if (store.size >= max) return error(fullMessage);
    if (pyLen(v) > maxLength) return error(`Entry is too long. Please shorten the entry to less than ${maxLength} characters.`);
    if (!VALID_KEY.test(k)) return error("Key must be in snake_case format and cannot contain spaces.");
    if (store.has(k)) return error("Key name must be unique.");
    store.set(k, v);
    return status(addedMessage);
  }

  private remove(store: PyDict, key: PyValue): PyValue {
    if (!store.has(hashable(key))) return error("Key not found.");
    store.delete(key);
    return status("Key removed.");
  }

  private replace(store: PyDict, maxLength: number, key: PyValue, value: PyValue): PyValue {
    const k = pyStr(key);
    const v = pyStr(value);
    if (!store.has(k)) return error("Key not found.");
    if (pyLen(v) > maxLength) return error(`Entry is too long. Please shorten the entry to less than ${maxLength} characters.`);
    store.set(k, v);
    return status("Key replaced.");
  }

  private retrieve(store: PyDict, key: PyValue): PyValue {
    if (!store.has(hashable(key))) return error("Key not found.");
    return PyDict.fromObject({ value: store.get(key)! });
  }

  protected readonly methods: Record<string, MethodSpec> = {
    core_memory_add: {
      params: [{ name: "key" }, { name: "value" }],
      run: (key, value) => this.add(this.coreMemory, MAX_CORE_MEMORY_SIZE, MAX_CORE_MEMORY_ENTRY_LENGTH, "Core memory is full. Please clear some entries.", "Key-value pair added.", key, value),
    },
    core_memory_remove: { params: [{ name: "key" }], run: (key) => this.remove(this.coreMemory, key) },
    core_memory_replace: { params: [{ name: "key" }, { name: "value" }], run: (key, value) => this.replace(this.coreMemory, MAX_CORE_MEMORY_ENTRY_LENGTH, key, value) },
    core_memory_clear: {
      params: [],
      run: () => {
        this.coreMemory = new PyDict();
        return status("Short term memory cleared.");
      },
    },
    core_memory_retrieve: { params: [{ name: "key" }], run: (key) => this.retrieve(this.coreMemory, key) },
    core_memory_list_keys: { params: [], run: () => PyDict.fromObject({ keys: this.coreMemory.keys() }) },
    core_memory_key_search: {
      params: [{ name: "query" }, { name: "k", default: 5n }],
      run: (query, k) => MemoryKv.similaritySearch(query, this.coreMemory.keys() as string[], k),
    },
    core_memory_retrieve_all: { params: [], run: () => this.coreMemory },
    archival_memory_add: {
      params: [{ name: "key" }, { name: "value" }],
      run: (key, value) =>
        this.add(this.archivalMemory, MAX_ARCHIVAL_MEMORY_SIZE, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH, "Long term memory is full. Please clear some entries.", "Key added.", key, value),
    },
    archival_memory_remove: { params: [{ name: "key" }], run: (key) => this.remove(this.archivalMemory, key) },
    archival_memory_replace: { params: [{ name: "key" }, { name: "value" }], run: (key, value) => this.replace(this.archivalMemory, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH, key, value) },
    archival_memory_clear: {
      params: [],
      run: () => {
        this.archivalMemory = new PyDict();
        return status("Long term memory cleared.");
      },
    },
    archival_memory_retrieve: { params: [{ name: "key" }], run: (key) => this.retrieve(this.archivalMemory, key) },
    archival_memory_list_keys: { params: [], run: () => PyDict.fromObject({ keys: this.archivalMemory.keys() }) },
    archival_memory_key_search: {
      params: [{ name: "query" }, { name: "k", default: 5n }],
      run: (query, k) => MemoryKv.similaritySearch(query, this.archivalMemory.keys() as string[], k),
    },
  };
}

export interface RecSumSnapshot {
  memory: string;
}

/** `MemoryAPI_rec_sum`. */
export class MemoryRecSum extends MemoryBackend {
  readonly className = "MemoryAPI_rec_sum";
  memory = "";

  restore(snapshot: RecSumSnapshot | null): void {
    this.memory = snapshot?.memory ?? "";
  }

  snapshot(): RecSumSnapshot {
    return { memory: this.memory };
  }

  contextText(): string {
    return this.memory === "" ? "There is no content in the memory at this point." : this.memory;
  }

  protected readonly methods: Record<string, MethodSpec> = {
    memory_append: {
      params: [{ name: "text" }],
      run: (text) => {
        const combined = this.memory + pyStr(text);
        if (pyLen(combined) > MAX_MEMORY_ENTRY_LENGTH) {
          return error(`Entry will be too long after appending. Please shorten the entry to less than ${MAX_MEMORY_ENTRY_LENGTH} characters.`);
        }
        this.memory = combined;
        return status("Memory appended.");
      },
    },
    memory_update: {
      params: [{ name: "text" }],
      run: (text) => {
        const t = pyStr(text);
        if (pyLen(t) > MAX_MEMORY_ENTRY_LENGTH) return error(`Entry will be too long after updating. Please shorten the entry to less than ${MAX_MEMORY_ENTRY_LENGTH} characters.`);
        this.memory = t;
        return status("Memory updated.");
      },
    },
    memory_clear: {
      params: [],
      run: () => {
        this.memory = "";
        return status("Short term memory cleared.");
      },
    },
    memory_replace: {
      params: [{ name: "old_text" }, { name: "new_text" }],
      run: (oldText, newText) => {
        const o = pyStr(oldText);
        const n = pyStr(newText);
        if (!this.memory.includes(o)) return error(`Text '${o}' not found in memory.`);
        if (pyLen(n) > MAX_MEMORY_ENTRY_LENGTH) return error(`Entry will be too long after replacing. Please shorten the entry to less than ${MAX_MEMORY_ENTRY_LENGTH} characters.`);
        this.memory = this.memory.replaceAll(o, () => n);
        return status("Memory updated.");
      },
    },
    memory_retrieve: {
      params: [],
      run: () => (this.memory === "" ? error("Memory is empty.") : PyDict.fromObject({ memory_content: this.memory })),
    },
  };
}

/** A back end by upstream's class name (memory_vector is not available offline). */
export function createMemoryBackend(className: string): MemoryKv | MemoryRecSum {
  if (className === "MemoryAPI_kv") return new MemoryKv();
  if (className === "MemoryAPI_rec_sum") return new MemoryRecSum();
  throw new Error(`unknown memory back end ${className} (MemoryAPI_kv, MemoryAPI_rec_sum)`);
}

