/**
 * The binary (protobuf) wire format of the Tinker API (package `tinker_public`, proto3), re-declared
 * from the field table in ../shared/docs/tinker-protocol.md §1.10 — no .proto file is published.
 * SDK 0.25 posts forward_backward only in this format and asks for sample / forward_backward results
 * in it (`Accept: application/x-protobuf`); SkyRL tx accepts and serves both it and JSON.
 *
 * Encoding rules: token ids are little-endian int32 bytes; dense tensors are float32 or int64 bytes
 * (int64 written as two little-endian 32-bit halves); result tensors of all datums are concatenated
 * with int64 byte offsets (num_datums + 1 entries). Request tensors carry their shape as the SDK sends it
 * (`list(array.shape)`: [n] for the 1-D loss inputs). The schema is parsed once by protobufjs.
 */
import protobuf from "protobufjs";

const SCHEMA = `
syntax = "proto3";
package tinker_public;

enum StopReason { STOP_REASON_STOP = 0; STOP_REASON_LENGTH = 1; }
enum DType { DTYPE_UNSPECIFIED = 0; DTYPE_FLOAT32 = 1; DTYPE_INT64 = 2; DTYPE_INT32 = 3; DTYPE_BFLOAT16 = 4; }

message EncodedTextChunk { bytes tokens = 1; }
message ImageChunk { bytes data = 1; string format = 2; optional int32 expected_tokens = 3; }
message DmelChunk { bytes dmel = 1; }
message Chunk {
  oneof chunk { EncodedTextChunk encoded_text = 1; ImageChunk image = 2; DmelChunk dmel = 3; }
}
message SparseCsr { bytes values = 1; bytes crow_indices = 2; bytes col_indices = 3; }
message Tensor {
  oneof encoding { bytes dense = 1; SparseCsr sparse_csr = 2; }
  DType dtype = 3;
  repeated int64 shape = 4;
}
message Datum { repeated Chunk model_input = 1; map<string, Tensor> loss_fn_inputs = 2; }
message ForwardBackwardRequest {
  string model_id = 1;
  int32 seq_id = 2;
  repeated Datum data = 3;
  string loss_fn = 4;
  map<string, double> loss_fn_config = 5;
  bool forward_only = 6;
}

message BatchedTensor { bytes data = 1; bytes offsets = 2; DType dtype = 3; repeated int64 trailing_shape = 4; }
message ArrayRecord { string type_tag = 1; map<string, BatchedTensor> fields = 2; int64 num_datums = 3; }
message ForwardBackwardOutput {
  string loss_fn_output_type = 1;
  repeated ArrayRecord loss_fn_outputs = 2;
  map<string, double> metrics = 3;
}

message SampledSequence { StopReason stop_reason = 1; bytes tokens = 2; optional bytes logprobs = 3; }
message TopkPromptLogprobs { bytes token_ids = 1; bytes logprobs = 2; uint32 k = 3; uint32 prompt_length = 4; }
message SampleResponse {
  repeated SampledSequence sequences = 1;
  optional bytes prompt_logprobs = 2;
  optional TopkPromptLogprobs topk_prompt_logprobs = 3;
  int32 prompt_cache_hit_tokens = 4;
}
`;

export const PROTO_CONTENT_TYPE = "application/x-protobuf";

const root = protobuf.parse(SCHEMA, { keepCase: true }).root;
const ForwardBackwardRequestMsg = root.lookupType("tinker_public.ForwardBackwardRequest");
const ForwardBackwardOutputMsg = root.lookupType("tinker_public.ForwardBackwardOutput");
const SampleResponseMsg = root.lookupType("tinker_public.SampleResponse");

export const DTYPE = { FLOAT32: 1, INT64: 2, INT32: 3, BFLOAT16: 4 } as const;

/** Numbers a tensor may be given as: plain arrays (JSON-shaped callers) or typed arrays (packed callers). */
export type NumberArray = ArrayLike<number>;

export interface ProtoTensorInput {
  data: NumberArray;
  dtype: "int64" | "float32";
  shape?: number[] | null;
}
export interface ProtoDatumInput {
  tokens: NumberArray;
  loss_fn_inputs: Record<string, ProtoTensorInput>;
}
export interface ForwardBackwardRequestInput {
  model_id: string;
  seq_id: number;
  loss_fn: string;
  loss_fn_config?: Record<string, number> | null;
  forward_only: boolean;
  data: ProtoDatumInput[];
}

const asBytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** int32 little-endian bytes (the platform is little-endian; Node only runs on such hosts). */
export function int32Bytes(values: NumberArray): Uint8Array {
  if (values instanceof Int32Array) return asBytes(values);
  // The constructor copies an array-like in one pass; TypedArray.from walks the iterator (several times slower).
  return asBytes(new Int32Array(values as ArrayLike<number>));
}

export function float32Bytes(values: NumberArray): Uint8Array {
  if (values instanceof Float32Array) return asBytes(values);
  return asBytes(new Float32Array(values as ArrayLike<number>));
}

/** int64 little-endian bytes: low 32 bits, then the sign-extended high word. */
export function int64Bytes(values: NumberArray): Uint8Array {
  const out = new Int32Array(values.length * 2);
  writeInt64(values, out);
  return asBytes(out);
}

/** Writes `values` as int64 little-endian words into `out` (2 × length int32s). */
function writeInt64(values: NumberArray, out: Int32Array): void {
  if (values instanceof Int32Array) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      out[2 * i] = v;
      out[2 * i + 1] = v >> 31;
    }
    return;
  }
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out[2 * i] = v | 0;
    out[2 * i + 1] = Math.floor(v / 2 ** 32);
  }
}

/**
 * Copies bytes into a fresh, aligned buffer of exactly their length. Decoded `bytes` fields are views
 * at arbitrary offsets into a larger buffer (and Node Buffers' slice() does not copy).
 */
function aligned(bytes: Uint8Array): ArrayBuffer {
  return new Uint8Array(bytes).buffer;
}

/** protobufjs gives unset `bytes` fields as its default (an empty array): normalise to Uint8Array. */
const u8 = (b: Uint8Array | ArrayLike<number> | null | undefined): Uint8Array => (b instanceof Uint8Array ? b : new Uint8Array(b ?? []));

export function readInt32(raw: Uint8Array): number[] {
  const bytes = u8(raw);
  if (bytes.byteLength % 4 !== 0) throw new Error(`int32 field has ${bytes.byteLength} bytes (not a multiple of 4)`);
  return Array.from(new Int32Array(aligned(bytes)));
}

export function readFloat32(raw: Uint8Array): number[] {
  const bytes = u8(raw);
  if (bytes.byteLength % 4 !== 0) throw new Error(`float32 field has ${bytes.byteLength} bytes (not a multiple of 4)`);
  return Array.from(new Float32Array(aligned(bytes)));
}

export function readInt64(raw: Uint8Array): number[] {
  const bytes = u8(raw);
  if (bytes.byteLength % 8 !== 0) throw new Error(`int64 field has ${bytes.byteLength} bytes (not a multiple of 8)`);
  const words = new Int32Array(aligned(bytes));
  const out = new Array<number>(words.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = words[2 * i + 1] * 2 ** 32 + (words[2 * i] >>> 0);
  return out;
}

/** bfloat16 values are the upper 16 bits of a float32. */
function readBfloat16(bytes: Uint8Array): number[] {
  if (bytes.byteLength % 2 !== 0) throw new Error(`bfloat16 field has ${bytes.byteLength} bytes (not a multiple of 2)`);
  const halves = new Uint16Array(aligned(bytes));
  const widened = new Uint32Array(halves.length);
  for (let i = 0; i < halves.length; i++) widened[i] = halves[i] << 16;
  return Array.from(new Float32Array(widened.buffer));
}

function readByDtype(bytes: Uint8Array, dtype: number): { data: number[]; dtype: "int64" | "float32" } {
  switch (dtype) {
    case DTYPE.FLOAT32:
      return { data: readFloat32(bytes), dtype: "float32" };
    case DTYPE.INT64:
      return { data: readInt64(bytes), dtype: "int64" };
    case DTYPE.INT32:
      return { data: readInt32(bytes), dtype: "int64" };
    case DTYPE.BFLOAT16:
      return { data: readBfloat16(bytes), dtype: "float32" };
    default:
      throw new Error(`unsupported tensor dtype ${dtype}`);
  }
}

function tensorBytes(t: { data: NumberArray; dtype: "int64" | "float32" }): Uint8Array {
  return t.dtype === "int64" ? int64Bytes(t.data) : float32Bytes(t.data);
}

/**
 * The protobufjs objects of a group of datums. int64 tensors are widened, and float tensors narrowed to
 * float32, into buffers shared by the group (views into them), so a 5 MB chunk allocates a handful of
 * buffers instead of several per datum.
 */
function datumMessages(data: ProtoDatumInput[]) {
  let wide = 0;
  let narrow = 0;
  for (const d of data)
    for (const name in d.loss_fn_inputs) {
      const t = d.loss_fn_inputs[name];
      if (t.dtype === "int64") wide += t.data.length;
      else if (!(t.data instanceof Float32Array)) narrow += t.data.length;
    }
  const pool = new Int32Array(2 * wide);
  const floats = new Float32Array(narrow);
  let at = 0;
  let fat = 0;
  const bytesOf = (t: ProtoTensorInput): Uint8Array => {
    if (t.dtype !== "int64") {
      if (t.data instanceof Float32Array) return asBytes(t.data);
      const out = floats.subarray(fat, fat + t.data.length);
      fat += t.data.length;
      out.set(t.data);
      return asBytes(out);
    }
    const out = pool.subarray(at, at + 2 * t.data.length);
    at += 2 * t.data.length;
    writeInt64(t.data, out);
    return asBytes(out);
  };
  return data.map((d) => ({
    model_input: [{ encoded_text: { tokens: int32Bytes(d.tokens) } }],
    loss_fn_inputs: Object.fromEntries(Object.entries(d.loss_fn_inputs).map(([name, t]) => [name, { dense: bytesOf(t), dtype: t.dtype === "int64" ? DTYPE.INT64 : DTYPE.FLOAT32, shape: t.shape ?? [t.data.length] }])),
  }));
}

/** Serialises a ForwardBackwardRequest (one chunk of a forward_backward call). */
export function encodeForwardBackwardRequest(req: ForwardBackwardRequestInput): Uint8Array {
  const w = new ForwardBackwardWriter(req);
  w.add(req.data);
  return w.finish();
}

/**
 * A ForwardBackwardRequest serialised a slice of datums at a time. Protobuf messages concatenate
 * (repeated fields append), so the header and each slice's `data` entries are encoded into one
 * protobufjs Writer, and finish() hands out its buffer without another copy.
 */
export class ForwardBackwardWriter {
  private readonly writer = protobuf.Writer.create();
  constructor(header: Omit<ForwardBackwardRequestInput, "data">) {
    ForwardBackwardRequestMsg.encode(
      { model_id: header.model_id, seq_id: header.seq_id, loss_fn: header.loss_fn, loss_fn_config: header.loss_fn_config ?? {}, forward_only: header.forward_only },
      this.writer,
    );
  }

  add(data: ProtoDatumInput[]): void {
    if (data.length > 0) ForwardBackwardRequestMsg.encode({ data: datumMessages(data) }, this.writer);
  }

  /** The request bytes (a view of the writer's buffer: the writer must not be used afterwards). */
  finish(): Uint8Array {
    return this.writer.finish(true);
  }
}

/** Bytes of a varint (non-negative safe integers). */
function varintSize(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** A shape or value the direct writer does not encode (negative or fractional varints): protobufjs does. */
const plainVarint = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** Sizes of one datum's fields, computed once for the length prefixes. */
interface DatumPlan {
  tokens: Int32Array;
  tokensSize: number;
  chunk: number;
  modelInput: number;
  entries: Array<{ key: Uint8Array; tensor: ProtoTensorInput; dense: number; dtype: number; shape: number[]; shapeSize: number; size: number; body: number }>;
  size: number;
}

const utf8 = new TextEncoder();

/**
 * A ForwardBackwardRequest written straight into one buffer of its exact size: the sizes of every
 * nested message are computed first (so each length prefix is written once, with no moves), then every
 * tensor's bytes are copied in place (float32 and int32 data as they are; int64 widened through one
 * scratch buffer). Byte for byte what ForwardBackwardWriter (protobufjs) writes for the same input —
 * header fields, then the datums, proto3 defaults left out (tinker-proto.test.ts compares them).
 * `steps()` writes the datums with a pause point every ~`yieldEvery` positions.
 */
export class ForwardBackwardBodyWriter {
  private readonly plans: DatumPlan[];
  private readonly header: Omit<ForwardBackwardRequestInput, "data">;
  private readonly modelId: Uint8Array;
  private readonly lossFn: Uint8Array;
  private readonly config: Array<{ key: Uint8Array; value: number }>;
  readonly size: number;

  /**
   * null when some value needs protobufjs's own rules — a negative seq_id or shape entry, a string with
   * UTF-16 surrogates (its UTF-8 writer and TextEncoder may differ on lone ones): use ForwardBackwardWriter.
   */
  static create(header: Omit<ForwardBackwardRequestInput, "data">, data: ProtoDatumInput[]): ForwardBackwardBodyWriter | null {
    if (!Number.isInteger(header.seq_id) || header.seq_id < 0 || header.seq_id > 0x7fffffff) return null;
    const surrogates = /[\uD800-\uDFFF]/;
    if (surrogates.test(header.model_id) || surrogates.test(header.loss_fn) || Object.keys(header.loss_fn_config ?? {}).some((k) => surrogates.test(k))) return null;
    for (const d of data)
      for (const name in d.loss_fn_inputs) {
        if (surrogates.test(name)) return null;
        const shape = d.loss_fn_inputs[name].shape;
        if (shape && !shape.every(plainVarint)) return null;
      }
    return new ForwardBackwardBodyWriter(header, data);
  }

  private constructor(header: Omit<ForwardBackwardRequestInput, "data">, data: ProtoDatumInput[]) {
    this.header = header;
    this.modelId = utf8.encode(header.model_id);
    this.lossFn = utf8.encode(header.loss_fn);
    this.config = Object.keys(header.loss_fn_config ?? {}).map((k) => ({ key: utf8.encode(k), value: header.loss_fn_config![k] }));
    let size = 0;
    if (this.modelId.length) size += 1 + varintSize(this.modelId.length) + this.modelId.length;
    if (header.seq_id !== 0) size += 1 + varintSize(header.seq_id);
    if (this.lossFn.length) size += 1 + varintSize(this.lossFn.length) + this.lossFn.length;
    for (const c of this.config) {
      const entry = 1 + varintSize(c.key.length) + c.key.length + 9;
      size += 1 + varintSize(entry) + entry;
    }
    if (header.forward_only) size += 2;
    const keys = new Map<string, Uint8Array>();
    this.plans = data.map((d) => {
      const tokens = d.tokens instanceof Int32Array ? d.tokens : new Int32Array(d.tokens as ArrayLike<number>);
      const tokensSize = tokens.length * 4;
      const text = tokensSize > 0 ? 1 + varintSize(tokensSize) + tokensSize : 0;
      const chunk = 1 + varintSize(text) + text;
      const modelInput = 1 + varintSize(chunk) + chunk;
      let datum = modelInput;
      const entries: DatumPlan["entries"] = [];
      for (const name of Object.keys(d.loss_fn_inputs)) {
        const t = d.loss_fn_inputs[name];
        let key = keys.get(name);
        if (!key) keys.set(name, (key = utf8.encode(name)));
        const dense = t.data.length * (t.dtype === "int64" ? 8 : 4);
        const dtype = t.dtype === "int64" ? DTYPE.INT64 : DTYPE.FLOAT32;
        const shape = t.shape ?? [t.data.length];
        let shapeSize = 0;
        for (const v of shape) shapeSize += varintSize(v);
        const body = 1 + varintSize(dense) + dense + 2 + (shape.length ? 1 + varintSize(shapeSize) + shapeSize : 0);
        const entry = 1 + varintSize(key.length) + key.length + 1 + varintSize(body) + body;
        entries.push({ key, tensor: t, dense, dtype, shape, shapeSize, size: entry, body });
        datum += 1 + varintSize(entry) + entry;
      }
      size += 1 + varintSize(datum) + datum;
      return { tokens, tokensSize, chunk: text, modelInput: chunk, entries, size: datum };
    });
    this.size = size;
  }

  /** The whole body at once. */
  encode(): Uint8Array {
    const steps = this.steps(Infinity);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /** Writes the body, pausing (yield) after each ~`yieldEvery` positions; returns the bytes. */
  *steps(yieldEvery: number): Generator<void, Uint8Array> {
    // An unpooled buffer of exactly the body (every byte is written below).
    const out = Buffer.allocUnsafeSlow(this.size);
    let pos = 0;
    const varint = (v: number) => {
      while (v >= 128) {
        out[pos++] = (v % 128) | 128;
        v = Math.floor(v / 128);
      }
      out[pos++] = v;
    };
    const bytes = (b: Uint8Array) => {
      out.set(b, pos);
      pos += b.length;
    };
    const h = this.header;
    if (this.modelId.length) (out[pos++] = 10, varint(this.modelId.length), bytes(this.modelId));
    if (h.seq_id !== 0) (out[pos++] = 16, varint(h.seq_id));
    if (this.lossFn.length) (out[pos++] = 34, varint(this.lossFn.length), bytes(this.lossFn));
    const f64 = new Float64Array(1);
    for (const c of this.config) {
      out[pos++] = 42;
      varint(1 + varintSize(c.key.length) + c.key.length + 9);
      out[pos++] = 10;
      varint(c.key.length);
      bytes(c.key);
      out[pos++] = 17;
      f64[0] = c.value;
      bytes(asBytes(f64));
    }
    if (h.forward_only) (out[pos++] = 48, (out[pos++] = 1));
    let scratch = new Int32Array(0);
    let positions = 0;
    for (const p of this.plans) {
      out[pos++] = 26;
      varint(p.size);
      out[pos++] = 10;
      varint(p.modelInput);
      out[pos++] = 10;
      varint(p.chunk);
      if (p.tokensSize > 0) {
        out[pos++] = 10;
        varint(p.tokensSize);
        bytes(asBytes(p.tokens));
      }
      for (const e of p.entries) {
        out[pos++] = 18;
        varint(e.size);
        out[pos++] = 10;
        varint(e.key.length);
        bytes(e.key);
        out[pos++] = 18;
        varint(e.body);
        out[pos++] = 10;
        varint(e.dense);
        const data = e.tensor.data;
        if (e.tensor.dtype === "int64") {
          if (scratch.length < 2 * data.length) scratch = new Int32Array(2 * data.length);
          const wide = scratch.subarray(0, 2 * data.length);
          writeInt64(data, wide);
          bytes(asBytes(wide));
        } else if (data instanceof Float32Array) bytes(asBytes(data));
        else bytes(asBytes(new Float32Array(data as ArrayLike<number>)));
        out[pos++] = 24;
        out[pos++] = e.dtype;
        if (e.shape.length) {
          out[pos++] = 34;
          varint(e.shapeSize);
          for (const v of e.shape) varint(v);
        }
      }
      positions += p.tokens.length;
      if (positions >= yieldEvery) {
        positions = 0;
        yield;
      }
    }
    if (pos !== this.size) throw new Error(`forward_backward body: wrote ${pos} bytes, planned ${this.size}`);
    return out;
  }
}

// protobufjs generates its encoders on first use (tens of milliseconds): do it at load, not mid-step.
encodeForwardBackwardRequest({ model_id: "", seq_id: 0, loss_fn: "", forward_only: false, data: [{ tokens: [0], loss_fn_inputs: { x: { data: [0], dtype: "float32" } } }] });

export interface DecodedDatum {
  tokens: number[];
  loss_fn_inputs: Record<string, { data: number[]; dtype: "int64" | "float32" }>;
}
export interface DecodedForwardBackwardRequest {
  model_id: string;
  seq_id: number;
  loss_fn: string;
  loss_fn_config: Record<string, number> | null;
  forward_only: boolean;
  data: DecodedDatum[];
}

interface RawTensor {
  dense?: Uint8Array;
  sparse_csr?: unknown;
  dtype?: number;
  shape?: number[];
}
interface RawChunk {
  encoded_text?: { tokens?: Uint8Array };
  image?: unknown;
  dmel?: unknown;
}

/** Parses a ForwardBackwardRequest body (servers: the embedded node, test doubles). Throws on anything it cannot represent. */
export function decodeForwardBackwardRequest(body: Uint8Array): DecodedForwardBackwardRequest {
  const msg = ForwardBackwardRequestMsg.toObject(ForwardBackwardRequestMsg.decode(body), { defaults: true, longs: Number }) as {
    model_id: string;
    seq_id: number;
    loss_fn: string;
    loss_fn_config: Record<string, number>;
    forward_only: boolean;
    data: Array<{ model_input: RawChunk[]; loss_fn_inputs: Record<string, RawTensor> }>;
  };
  const data = msg.data.map((d, i) => {
    const tokens: number[] = [];
    for (const chunk of d.model_input) {
      if (!chunk.encoded_text) throw new Error(`datum ${i}: only encoded_text chunks are supported`);
      tokens.push(...readInt32(chunk.encoded_text.tokens ?? new Uint8Array()));
    }
    const inputs: DecodedDatum["loss_fn_inputs"] = {};
    for (const [name, t] of Object.entries(d.loss_fn_inputs)) {
      if (t.sparse_csr) throw new Error(`datum ${i}: loss_fn_inputs.${name}: sparse tensors are not supported`);
      if (t.dtype !== DTYPE.FLOAT32 && t.dtype !== DTYPE.INT64) throw new Error(`datum ${i}: loss_fn_inputs.${name}: dtype ${t.dtype} is not float32 or int64`);
      const values = readByDtype(t.dense ?? new Uint8Array(), t.dtype);
      // A shape, when given (the SDK always gives one), must hold exactly the values sent.
      const shape = t.shape ?? [];
      if (shape.length > 0 && shape.reduce((a, b) => a * b, 1) !== values.data.length) {
        throw new Error(`datum ${i}: loss_fn_inputs.${name}: shape [${shape.join(", ")}] does not hold its ${values.data.length} values`);
      }
      inputs[name] = values;
    }
    return { tokens, loss_fn_inputs: inputs };
  });
  return {
    model_id: msg.model_id,
    seq_id: msg.seq_id,
    loss_fn: msg.loss_fn,
    loss_fn_config: Object.keys(msg.loss_fn_config).length > 0 ? msg.loss_fn_config : null,
    forward_only: msg.forward_only,
    data,
  };
}

// ------------------------------------------------------------------ results

export interface TensorJson {
  data: number[];
  dtype: "int64" | "float32";
  shape?: number[] | null;
}
export interface ForwardBackwardOutputJson {
  loss_fn_output_type: string;
  loss_fn_outputs: Array<Record<string, TensorJson>>;
  metrics: Record<string, number>;
}

/** Serialises a ForwardBackwardOutput (servers). All datums share one ArrayRecord. */
export function encodeForwardBackwardOutput(out: ForwardBackwardOutputJson): Uint8Array {
  const names = [...new Set(out.loss_fn_outputs.flatMap((o) => Object.keys(o)))];
  const fields: Record<string, unknown> = {};
  for (const name of names) {
    const parts = out.loss_fn_outputs.map((o) => o[name]);
    const dtype = parts.find(Boolean)?.dtype ?? "float32";
    const encoded = parts.map((p) => (p ? tensorBytes({ data: p.data, dtype }) : new Uint8Array()));
    const offsets = [0];
    for (const e of encoded) offsets.push(offsets.at(-1)! + e.byteLength);
    const data = new Uint8Array(offsets.at(-1)!);
    encoded.forEach((e, i) => data.set(e, offsets[i]));
    fields[name] = { data, offsets: int64Bytes(offsets), dtype: dtype === "int64" ? DTYPE.INT64 : DTYPE.FLOAT32, trailing_shape: [] };
  }
  const records = out.loss_fn_outputs.length > 0 ? [{ type_tag: "", fields, num_datums: out.loss_fn_outputs.length }] : [];
  return ForwardBackwardOutputMsg.encode({ loss_fn_output_type: out.loss_fn_output_type, loss_fn_outputs: records, metrics: out.metrics }).finish();
}

/** Parses a ForwardBackwardOutput result into the JSON shape (one record per datum). */
export function decodeForwardBackwardOutput(body: Uint8Array): ForwardBackwardOutputJson {
  const msg = ForwardBackwardOutputMsg.toObject(ForwardBackwardOutputMsg.decode(body), { defaults: true, longs: Number }) as {
    loss_fn_output_type: string;
    loss_fn_outputs: Array<{ fields: Record<string, { data: Uint8Array; offsets: Uint8Array; dtype: number; trailing_shape: number[] }>; num_datums: number }>;
    metrics: Record<string, number>;
  };
  const outputs: Array<Record<string, TensorJson>> = [];
  for (const record of msg.loss_fn_outputs) {
    const start = outputs.length;
    for (let i = 0; i < record.num_datums; i++) outputs.push({});
    for (const [name, bt] of Object.entries(record.fields)) {
      const offsets = readInt64(bt.offsets);
      if (offsets.length !== record.num_datums + 1) throw new Error(`loss_fn_outputs.${name}: ${offsets.length} offsets for ${record.num_datums} datums`);
      const inner = bt.trailing_shape.reduce((a, b) => a * b, 1);
      for (let i = 0; i < record.num_datums; i++) {
        const slice = bt.data.subarray(offsets[i], offsets[i + 1]);
        const t = readByDtype(slice, bt.dtype);
        outputs[start + i][name] = { ...t, shape: [inner > 0 ? t.data.length / inner : 0, ...bt.trailing_shape] };
      }
    }
  }
  return { loss_fn_output_type: msg.loss_fn_output_type, loss_fn_outputs: outputs, metrics: msg.metrics };
}

export interface SampleResponseJson {
  sequences: Array<{ stop_reason: "stop" | "length"; tokens: number[]; logprobs: number[] | null }>;
  prompt_logprobs?: Array<number | null> | null;
}

/** Serialises a SampleResponse (servers). */
export function encodeSampleResponse(res: SampleResponseJson): Uint8Array {
  return SampleResponseMsg.encode({
    sequences: res.sequences.map((s) => ({
      stop_reason: s.stop_reason === "length" ? 1 : 0,
      tokens: int32Bytes(s.tokens),
      ...(s.logprobs ? { logprobs: float32Bytes(s.logprobs) } : {}),
    })),
    ...(res.prompt_logprobs ? { prompt_logprobs: float32Bytes(res.prompt_logprobs.map((x) => x ?? NaN)) } : {}),
  }).finish();
}

/** Parses a SampleResponse result into the JSON shape. */
export function decodeSampleResponse(body: Uint8Array): SampleResponseJson {
  const msg = SampleResponseMsg.decode(body) as unknown as {
    sequences: Array<{ stop_reason?: number; tokens?: Uint8Array; logprobs?: Uint8Array | null }>;
    prompt_logprobs?: Uint8Array | null;
  };
  return {
    sequences: msg.sequences.map((s) => ({
      stop_reason: s.stop_reason === 1 ? "length" : "stop",
      tokens: readInt32(s.tokens ?? new Uint8Array()),
      logprobs: s.logprobs && u8(s.logprobs).byteLength > 0 ? readFloat32(s.logprobs) : s.logprobs ? [] : null,
    })),
    prompt_logprobs: msg.prompt_logprobs ? readFloat32(msg.prompt_logprobs).map((x) => (Number.isNaN(x) ? null : x)) : null,
  };
}

/**
 * The SDK's size estimate of one datum on the proto wire (what `fwdbwd_max_chunk_bytes_count`
 * limits): 4 bytes per token, plus each tensor's dense bytes in its dtype.
 */
export function estimateDatumBytes(d: { tokens: number; tensors: Array<{ length: number; dtype: "int64" | "float32" }> }): number {
  let n = d.tokens * 4;
  for (const t of d.tensors) n += t.length * (t.dtype === "int64" ? 8 : 4);
  return n;
}
