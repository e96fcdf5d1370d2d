/**
 * One JSON POST over a lean HTTP/1.1 client on node:net / node:tls sockets, with a keep-alive connection
 * pool per node: the transport of the non-streamed chat calls (lib/clients/openai-chat.ts). At 256
 * rollouts in flight against a vLLM node the worker makes thousands of calls a minute; fetch (undici's
 * WHATWG streams) cost ~2.4 ms CPU per generation in bench:rollout, node:http ~0.35–0.45 ms, this client
 * less (docs/BENCHMARKS.md): per request one Buffer (a preallocated head template, the length, the body)
 * in one socket write; per response the status line and headers parsed by hand, body Buffers kept and
 * decoded once.
 *
 * What comes back is the status, the headers and the body as text; deciding what a status means and
 * validating the body is the caller's job.
 *
 * Framing read: Content-Length, chunked (extensions and trailers ignored), read-until-close (no length),
 * no body for 204/304; 1xx interim answers are skipped; `Connection: close` (or HTTP/1.0 without
 * keep-alive) retires the socket after the answer. Only POST is sent (never HEAD).
 */
import { Buffer } from "node:buffer";
import net from "node:net";
import { performance } from "node:perf_hooks";
import tls from "node:tls";

export interface HttpReply {
  status: number;
  headers: HeaderLookup;
  body: string;
}

/** The one thing callers read from response headers (Retry-After). */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** The request never got an HTTP answer (refused, reset, DNS, TLS, cut mid-body, unreadable framing). */
export class HttpConnectionError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "HttpConnectionError";
  }
}

/** Response headers as a flat [name, value, name, value, …] list (names lower-cased). */
class ReplyHeaders implements HeaderLookup {
  constructor(private readonly flat: string[]) {}
  get(name: string): string | null {
    const key = name.toLowerCase();
    let out: string | null = null;
    for (let i = 0; i < this.flat.length; i += 2) if (this.flat[i] === key) out = out === null ? this.flat[i + 1]! : `${out}, ${this.flat[i + 1]}`;
    return out;
  }
}

/** Longest status line + headers accepted (node:http's default is 16 KiB), and longest chunk-size or trailer line. */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 16 * 1024;
/**
 * Plain sockets read into this one buffer (net.connect's `onread`: no Readable stream, no 'data' event,
 * no Buffer per read); each read is parsed before the next one, and body bytes that must outlive the
 * read are copied out.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** Idle time after which a pooled socket is not reused when the server did not say (uvicorn, vLLM's server, closes at 5 s). */
const DEFAULT_IDLE_REUSE_MS = 4_000;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkCr,
  ChunkLf,
  Trailers,
  UntilClose,
}

interface Call {
  bytes: Buffer;
  resolve(r: HttpReply): void;
  reject(e: Error): void;
  conn: Conn | undefined;
  done: boolean;
  /** Already retried once on a fresh socket. */
  retried: boolean;
}

class MalformedReply extends Error {}

/** One socket and the parser of the answer in flight on it. */
class Conn {
  readonly socket: net.Socket;
  call: Call | undefined;
  /** Answers completed on this socket: a reused socket (served > 0) may have been closed by the server while idle. */
  served = 0;
  /** Some byte of the current answer arrived (then a retry could repeat a request the server acted on). */
  received = false;
  dead = false;
  refed = true;
  idleSince = 0;
  idleReuseMs = DEFAULT_IDLE_REUSE_MS;
  private error: Error | undefined;
  /** Reads land in READ_BUFFER, reused by the next read: kept body bytes must be copied. */
  private readonly borrowed: boolean;

  // parser state of the current answer
  private state = State.Head;
  private line = "";
  private lineBytes = 0;
  private headBytes = 0;
  private status = 0;
  private headers: string[] = [];
  private remaining = 0;
  private chunks: Buffer[] = [];
  private bodyBytes = 0;
  private closeAfter = false;
  private sawStatus = false;
  private http10 = false;

  constructor(private readonly pool: HttpPool) {
    const { host, port, secure } = pool;
    this.borrowed = !secure;
    if (secure) {
      this.socket = tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ["http/1.1"], ...pool.tlsOptions });
      this.socket.on("data", (d: Buffer) => this.onData(d, d.length));
    } else {
      this.socket = net.connect({ host, port, onread: { buffer: READ_BUFFER, callback: (n: number, buf: Uint8Array) => this.onData(buf as Buffer, n) } });
    }
    this.socket.setNoDelay(true);
    this.socket.on("error", (e) => (this.error ??= e));
    this.socket.on("close", () => this.onClose());
  }

  start(call: Call): void {
    this.call = call;
    call.conn = this;
    this.received = false;
    this.state = State.Head;
    this.line = "";
    this.lineBytes = 0;
    this.headBytes = 0;
    this.sawStatus = false;
    this.headers = [];
    this.chunks = [];
    this.bodyBytes = 0;
    this.closeAfter = false;
    if (!this.refed) {
      this.socket.ref();
      this.refed = true;
    }
    this.socket.write(call.bytes);
  }

  destroy(): void {
    this.pool.forget(this);
    this.socket.destroy();
  }

  /** `d[0, end)` arrived. Returns true: `onread` pauses the socket on false. */
  private onData(d: Buffer, end: number): true {
    const call = this.call;
    if (!call) {
      // Bytes nobody asked for (or after an abort): the framing of this socket cannot be trusted.
      this.destroy();
      return true;
    }
    this.received = true;
    try {
      this.parse(d, end);
    } catch (e) {
      const why = e instanceof MalformedReply ? e.message : String(e);
      this.fail(new HttpConnectionError(`malformed HTTP reply from ${this.pool.host}:${this.pool.port}: ${why}`, "EPROTO"));
    }
    return true;
  }

  /** Reads one line (through LF; a CR before it dropped) into `this.line`; returns the offset after it, or -1 when the line is not complete yet. */
  private readLine(d: Buffer, off: number, limit: number): number {
    let lf = d.indexOf(10, off);
    if (lf >= limit) lf = -1;
    const end = lf < 0 ? limit : lf;
    this.lineBytes += end - off;
    if (this.lineBytes > MAX_LINE_BYTES) throw new MalformedReply(`a line of the reply's head or chunk framing is longer than ${MAX_LINE_BYTES} bytes`);
    this.line = this.line === "" ? d.toString("latin1", off, end) : this.line + d.toString("latin1", off, end);
    if (lf < 0) return -1;
    this.lineBytes = 0;
    if (this.line.endsWith("\r")) this.line = this.line.slice(0, -1);
    return lf + 1;
  }

  private parse(d: Buffer, limit: number): void {
    let off = 0;
    while (off < limit) {
      switch (this.state) {
        case State.Head: {
          const next = this.readLine(d, off, limit);
          if (next < 0) return;
          off = next;
          const line = this.line;
          this.line = "";
          this.headBytes += line.length + 2;
          if (this.headBytes > MAX_HEAD_BYTES) throw new MalformedReply(`the head is longer than ${MAX_HEAD_BYTES} bytes`);
          if (!this.sawStatus) {
            this.statusLine(line);
            this.sawStatus = true;
          } else if (line !== "") this.headerLine(line);
          else if (this.endOfHead()) return this.finish(off < limit);
          break;
        }
        case State.Length: {
          const n = Math.min(this.remaining, limit - off);
          // The usual case, the whole body in the packet that ends the head: decoded straight from it.
          if (n === this.remaining && this.chunks.length === 0) return this.finish(off + n < limit, d.toString("utf8", off, off + n));
          this.take(d, off, n);
          off += n;
          this.remaining -= n;
          if (this.remaining === 0) return this.finish(off < limit);
          break;
        }
        case State.ChunkSize: {
          const next = this.readLine(d, off, limit);
          if (next < 0) return;
          off = next;
          // `size[;ext…]`, extensions (and the whitespace before them) ignored.
          const semi = this.line.indexOf(";");
          const hex = (semi < 0 ? this.line : this.line.slice(0, semi)).trim();
          this.line = "";
          if (!/^[0-9a-fA-F]{1,12}$/.test(hex)) throw new MalformedReply(`bad chunk size ${JSON.stringify(hex.slice(0, 20))}`);
          this.remaining = parseInt(hex, 16);
          this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
          break;
        }
        case State.ChunkData: {
          const n = Math.min(this.remaining, limit - off);
          this.take(d, off, n);
          off += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = State.ChunkCr;
          break;
        }
        case State.ChunkCr:
        case State.ChunkLf: {
          const want = this.state === State.ChunkCr ? 13 : 10;
          if (d[off] !== want) throw new MalformedReply("a chunk does not end with CRLF");
          off++;
          this.state = this.state === State.ChunkCr ? State.ChunkLf : State.ChunkSize;
          break;
        }
        case State.Trailers: {
          const next = this.readLine(d, off, limit);
          if (next < 0) return;
          off = next;
          const empty = this.line === "";
          this.line = "";
          if (empty) return this.finish(off < limit);
          break;
        }
        case State.UntilClose:
          this.take(d, off, limit - off);
          return;
      }
    }
  }

  private statusLine(line: string): void {
    // HTTP/1.x SSS[ reason]
    if (!/^HTTP\/1\.[01] [1-9]\d\d(?: |$)/.test(line)) throw new MalformedReply(`bad status line ${JSON.stringify(line.slice(0, 40))}`);
    this.status = Number(line.slice(9, 12));
    this.http10 = line[7] === "0";
  }

  private headerLine(line: string): void {
    if (line[0] === " " || line[0] === "\t") {
      // obs-fold: a continuation of the previous header's value.
      if (this.headers.length === 0) throw new MalformedReply("a folded line before any header");
      this.headers[this.headers.length - 1] += ` ${line.trim()}`;
      return;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) throw new MalformedReply(`bad header line ${JSON.stringify(line.slice(0, 40))}`);
    this.headers.push(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }

  /** The head is complete: decide the framing. True when the answer has no body. */
  private endOfHead(): boolean {
    const status = this.status;
    if (status < 200) {
      if (status === 101) throw new MalformedReply("the server switched protocols (101) unasked");
      // 1xx interim answer (100 Continue, 103 Early Hints): the real one follows.
      this.sawStatus = false;
      this.headers = [];
      this.headBytes = 0;
      return false;
    }
    let length = -1;
    let chunked = false;
    let otherCoding = false;
    let keepAlive = false;
    const h = this.headers;
    for (let i = 0; i < h.length; i += 2) {
      const name = h[i]!;
      const value = h[i + 1]!;
      if (name === "content-length") {
        if (!/^\d{1,15}$/.test(value)) throw new MalformedReply(`bad Content-Length ${JSON.stringify(value.slice(0, 20))}`);
        const n = Number(value);
        if (length >= 0 && n !== length) throw new MalformedReply("conflicting Content-Length headers");
        length = n;
      } else if (name === "transfer-encoding") {
        const codings = value.toLowerCase().split(",");
        chunked = codings[codings.length - 1]!.trim() === "chunked";
        otherCoding = !chunked;
      } else if (name === "connection") {
        const v = value.toLowerCase();
        if (v.includes("close")) this.closeAfter = true;
        if (v.includes("keep-alive")) keepAlive = true;
      } else if (name === "keep-alive") {
        // `timeout=N`: the server closes an idle socket after N s; stop reusing it a second before.
        const m = /timeout\s*=\s*(\d+)/i.exec(value);
        if (m) this.idleReuseMs = Math.max(0, Number(m[1]) * 1000 - 1000);
      }
    }
    if (this.http10 && !keepAlive) this.closeAfter = true;
    if (status === 204 || status === 304) return true;
    if (chunked) this.state = State.ChunkSize;
    else if (otherCoding) {
      // A coding we cannot frame: the body runs to the close.
      this.state = State.UntilClose;
      this.closeAfter = true;
    } else if (length >= 0) {
      if (length === 0) return true;
      this.state = State.Length;
      this.remaining = length;
    } else {
      this.state = State.UntilClose;
      this.closeAfter = true;
    }
    return false;
  }

  private take(d: Buffer, off: number, n: number): void {
    if (n === 0) return;
    // Copied out of the shared read buffer; a 'data' chunk (TLS) is ours to keep.
    this.chunks.push(this.borrowed ? Buffer.from(d.subarray(off, off + n)) : off === 0 && n === d.length ? d : d.subarray(off, off + n));
    this.bodyBytes += n;
  }

  private bodyText(): string {
    const c = this.chunks;
    if (c.length === 0) return "";
    return c.length === 1 ? c[0]!.toString("utf8") : Buffer.concat(c, this.bodyBytes).toString("utf8");
  }

  /** The answer is complete (body already decoded when given); `extra`: bytes followed it. */
  private finish(extra: boolean, body?: string): void {
    const call = this.call!;
    const reply: HttpReply = { status: this.status, headers: new ReplyHeaders(this.headers), body: body ?? this.bodyText() };
    this.call = undefined;
    this.chunks = [];
    call.conn = undefined;
    call.done = true;
    this.served++;
    // Bytes after the answer were not asked for: the socket's framing is lost, so it is not reused.
    if (this.closeAfter || extra) this.destroy();
    else this.pool.release(this);
    call.resolve(reply);
  }

  private fail(e: Error): void {
    const call = this.call;
    this.call = undefined;
    this.destroy();
    if (call && !call.done) {
      call.done = true;
      call.conn = undefined;
      call.reject(e);
    }
  }

  private onClose(): void {
    this.pool.forget(this);
    const call = this.call;
    if (!call || call.done) return;
    this.call = undefined;
    call.conn = undefined;
    if (this.state === State.UntilClose && !this.error) {
      call.done = true;
      call.resolve({ status: this.status, headers: new ReplyHeaders(this.headers), body: this.bodyText() });
      return;
    }
    // A keep-alive socket the server closed while it sat idle (its timeout raced our request): nothing
    // came back, so the request is sent once more on a fresh socket. Caveat: a POST is not idempotent —
    // a server that read the request and died before answering would see it twice; for chat completions
    // (no side effects beyond the node's compute) that is acceptable, and only when no byte came back.
    if (this.served > 0 && !this.received && !call.retried) {
      call.retried = true;
      this.pool.dispatch(call, true);
      return;
    }
    call.done = true;
    const e = this.error;
    call.reject(
      e
        ? new HttpConnectionError(e.message, (e as NodeJS.ErrnoException).code)
        : new HttpConnectionError(
            this.received ? "the connection closed before the reply was complete" : "the server closed the connection without answering",
            "ECONNRESET",
          ),
    );
  }
}

export interface HttpPoolOptions {
  /** Extra TLS options for https nodes (a private CA in `ca`, client certificates). */
  tls?: tls.ConnectionOptions;
}

/**
 * A keep-alive pool for one node: sockets are reused across calls (no TCP handshake per call) and
 * capped at the node's concurrency, so the pool never opens more than the node will serve at once;
 * calls beyond the cap wait for a socket, first come first served.
 */
export class HttpPool {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly tlsOptions: tls.ConnectionOptions | undefined;
  private readonly hostHeader: string;
  /** The base URL's path with a trailing slash, e.g. `/v1/`. */
  private readonly basePath: string;
  private readonly idle: Conn[] = [];
  private readonly open = new Set<Conn>();
  private waiting: Call[] = [];
  private closed = false;
  private templates = new Map<string, Buffer>();
  private templateHeaders: Record<string, string> | undefined;

  constructor(
    readonly base: URL,
    private maxSockets: number,
    opts: HttpPoolOptions = {},
  ) {
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new TypeError(`not an http(s) URL: ${base.href}`);
    this.secure = base.protocol === "https:";
    // URL keeps an IPv6 literal's brackets; net.connect wants the bare address.
    this.host = base.hostname.startsWith("[") ? base.hostname.slice(1, -1) : base.hostname;
    this.port = base.port ? Number(base.port) : this.secure ? 443 : 80;
    this.hostHeader = base.host;
    this.basePath = base.pathname.endsWith("/") ? base.pathname : `${base.pathname}/`;
    this.tlsOptions = opts.tls;
  }

  setMaxSockets(n: number): void {
    this.maxSockets = n;
    while (this.open.size > n && this.idle.length) this.idle.pop()!.destroy();
    this.drain();
  }

  /** Sockets open now (idle or busy). */
  get sockets(): number {
    return this.open.size;
  }

  /**
   * POST `body` (already JSON) to `path` under the base. `reply` resolves with any status and rejects
   * only without an answer; `abort(reason)` drops the request (its socket too) and rejects `reply`
   * with `reason`. No AbortSignal: the caller's timers and signal call `abort` directly.
   */
  post(path: string, body: string, headers: Record<string, string>): PostHandle {
    const call: Call = { bytes: this.encode(path, body, headers), resolve: noop, reject: noop, conn: undefined, done: false, retried: false };
    const reply = new Promise<HttpReply>((resolve, reject) => {
      call.resolve = resolve;
      call.reject = reject;
    });
    if (this.closed) {
      call.done = true;
      call.reject(new HttpConnectionError("the connection pool is closed"));
    } else this.dispatch(call, false);
    return new PostHandle(reply, this, call);
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.open]) c.destroy();
    for (const call of this.waiting.splice(0)) {
      call.done = true;
      call.reject(new HttpConnectionError("the connection pool is closed"));
    }
  }

  /** The request bytes: the path's head template, the length, the body, in ONE Buffer (one socket write). */
  private encode(path: string, body: string, headers: Record<string, string>): Buffer {
    if (headers !== this.templateHeaders) {
      this.templateHeaders = headers;
      this.templates = new Map();
    }
    let template = this.templates.get(path);
    if (!template) {
      let head = `POST ${this.basePath}${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n`;
      for (const [name, value] of Object.entries(headers)) {
        const lower = name.toLowerCase();
        if (lower === "content-type" || lower === "accept" || lower === "content-length" || lower === "host") continue;
        // A CR or LF in a header would let a value write its own headers.
        if (/[\r\n]/.test(name + value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new TypeError(`invalid HTTP header ${JSON.stringify(name)}`);
        head += `${name}: ${value}\r\n`;
      }
      head += "content-type: application/json\r\naccept: application/json\r\ncontent-length: ";
      if (/[\r\n]/.test(path) || path.includes(" ")) throw new TypeError(`invalid request path ${JSON.stringify(path)}`);
      template = Buffer.from(head, "latin1");
      this.templates.set(path, template);
    }
    const length = Buffer.byteLength(body, "utf8");
    const digits = String(length);
    const out = Buffer.allocUnsafe(template.length + digits.length + 4 + length);
    let off = template.copy(out, 0);
    off += out.write(digits, off, "latin1");
    out[off++] = 13;
    out[off++] = 10;
    out[off++] = 13;
    out[off++] = 10;
    out.write(body, off, "utf8");
    return out;
  }

  /** Give `call` a socket: an idle one (unless `fresh`), a new one under the cap, else a place in the queue. */
  dispatch(call: Call, fresh: boolean): void {
    if (this.closed) {
      call.done = true;
      call.reject(new HttpConnectionError("the connection pool is closed"));
      return;
    }
    if (!fresh) {
      const now = performance.now();
      while (this.idle.length) {
        const c = this.idle.pop()!;
        // Closed under us (its 'close' not handled yet) or idle past the server's keep-alive timeout.
        if (c.socket.destroyed || now - c.idleSince > c.idleReuseMs) {
          c.destroy();
          continue;
        }
        c.start(call);
        return;
      }
    } else if (this.open.size >= this.maxSockets && this.idle.length) this.idle.shift()!.destroy();
    if (this.open.size < this.maxSockets) {
      const c = new Conn(this);
      this.open.add(c);
      c.start(call);
      return;
    }
    if (fresh) this.waiting.unshift(call);
    else this.waiting.push(call);
  }

  /** A socket finished an answer and may serve the next call. */
  release(c: Conn): void {
    if (this.closed) return c.destroy();
    const next = this.waiting.length && this.open.size <= this.maxSockets ? this.waiting.shift() : undefined;
    if (next) return c.start(next);
    if (this.open.size > this.maxSockets) return c.destroy();
    c.idleSince = performance.now();
    // An idle pooled socket must not keep the process alive.
    c.socket.unref();
    c.refed = false;
    this.idle.push(c);
  }

  /** A socket is gone (closed, destroyed, retired): drop it from the pool and let a waiting call open another. */
  forget(c: Conn): void {
    if (c.dead) return;
    c.dead = true;
    this.open.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    this.drain();
  }

  private drain(): void {
    while (!this.closed && this.waiting.length && this.open.size < this.maxSockets) this.dispatch(this.waiting.shift()!, true);
  }

  /** PostHandle.abort's work. */
  abortCall(call: Call, reason: Error): void {
    if (call.done) return;
    call.done = true;
    const c = call.conn;
    if (c) {
      call.conn = undefined;
      c.call = undefined;
      c.destroy();
    } else {
      const i = this.waiting.indexOf(call);
      if (i >= 0) this.waiting.splice(i, 1);
    }
    call.reject(reason);
  }
}

function noop(): void {}

/** One POST in flight: its reply, and `abort(reason)` (a class, not a closure per call: see OrderedJsonParser's note in lib/python/json.ts). */
export class PostHandle {
  constructor(
    readonly reply: Promise<HttpReply>,
    private readonly pool: HttpPool,
    private readonly call: Call,
  ) {}
  abort(reason: Error): void {
    this.pool.abortCall(this.call, reason);
  }
}
