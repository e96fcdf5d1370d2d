/**
 * Change signals for the live UI: one LISTEN connection per server process fans Postgres
 * notifications (emitted by triggers on run, step, run_log, checkpoint and node) out to SSE subscribers.
 *
 * The connection survives a database outage of any length: it reconnects with capped exponential
 * backoff, and subscribers keep their listeners throughout. Signals sent while it was down are lost,
 * so each reconnect emits "resync" (subscribers refetch what they show).
 */
import { EventEmitter } from "node:events";
import pg from "pg";
import { changeEventSchema, type ChangeEvent } from "../contracts/events";

export type { ChangeEvent };

export const CHANNEL = "envace_events";
/** Auth change signals (a session ended, a role changed, a token revoked): never sent to clients (server/lib/caller-cache.ts). */
export const AUTH_CHANNEL = "envace_auth";

export interface ChangeFeedOptions {
  url: string;
  /** First reconnect delay, doubled per failed attempt up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  log?: (line: string) => void;
}

/**
 * Emits "change" (ChangeEvent), "auth" (on AUTH_CHANNEL), "resync" (after a reconnect), "up" and "down"
 * (connection state).
 */
export class ChangeFeed extends EventEmitter {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private attempt = 0;
  private closed = false;
  private everConnected = false;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly log: (line: string) => void;
  connected = false;

  constructor(private readonly opts: ChangeFeedOptions) {
    super();
    this.setMaxListeners(0);
    this.initialDelayMs = opts.initialDelayMs ?? 500;
    this.maxDelayMs = opts.maxDelayMs ?? 10_000;
    this.log = opts.log ?? ((l) => console.warn(l));
    void this.connect();
  }

  /** Resolves once the LISTEN is active (or immediately if it already is). */
  whenConnected(timeoutMs = 10_000): Promise<boolean> {
    if (this.connected) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.off("up", up);
        resolve(false);
      }, timeoutMs);
      const up = () => {
        clearTimeout(t);
        resolve(true);
      };
      this.once("up", up);
    });
  }

  private async connect() {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.opts.url, connectionTimeoutMillis: 5_000, keepAlive: true });
    this.client = client;
    let lost = false;
    const onLost = (why: string) => {
      if (lost) return;
      lost = true;
      client.removeAllListeners("notification");
      client.end().catch(() => {});
      if (this.client === client) this.client = null;
      if (this.connected) {
        this.connected = false;
        this.log(`live updates: database connection lost (${why}); reconnecting`);
        this.emit("down");
      }
      this.scheduleReconnect();
    };
    client.on("error", (err) => onLost(err.message));
    client.on("end", () => onLost("connection closed"));
    client.on("notification", (msg) => {
      if (msg.channel === AUTH_CHANNEL) {
        this.emit("auth");
        return;
      }
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        const event = changeEventSchema.safeParse(JSON.parse(msg.payload));
        if (event.success) this.emit("change", event.data);
      } catch {
        /* ignore foreign payloads */
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      await client.query(`LISTEN ${AUTH_CHANNEL}`);
    } catch (err) {
      onLost((err as Error).message);
      return;
    }
    if (lost || this.closed) {
      client.end().catch(() => {});
      return;
    }
    const reconnected = this.everConnected;
    if (reconnected) this.log(`live updates: reconnected after ${this.attempt} attempt(s)`);
    this.everConnected = true;
    this.attempt = 0;
    this.connected = true;
    this.emit("up");
    if (reconnected) this.emit("resync");
  }

  private scheduleReconnect() {
    if (this.closed || this.timer) return;
    this.attempt += 1;
    const base = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (this.attempt - 1));
    const delay = base / 2 + Math.random() * (base / 2); // jitter: many web processes do not reconnect in lockstep
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
  }

  async close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    this.connected = false;
    if (client) {
      client.removeAllListeners();
      client.on("error", () => {});
      await client.end().catch(() => {});
    }
  }
}

const globalForEvents = globalThis as unknown as { __envaceChangeFeed?: ChangeFeed; __envaceShutdownHooked?: boolean };

/** The process's one change feed (connecting in the background; never a cached failure). */
export function getChangeFeed(): ChangeFeed {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  globalForEvents.__envaceChangeFeed ??= new ChangeFeed({ url });
  return globalForEvents.__envaceChangeFeed;
}

/**
 * Close the process's change feed (a script that used server code in-process, before it stops its Postgres:
 * an open feed would keep reconnecting to the stopped database and hold the process alive). A later
 * getChangeFeed opens a new one.
 */
export async function closeChangeFeed(): Promise<void> {
  const feed = globalForEvents.__envaceChangeFeed;
  globalForEvents.__envaceChangeFeed = undefined;
  await feed?.close();
}

// ---------- shutdown: open event streams must not hold the server open ----------

const shutdownListeners = new Set<() => void>();
let shuttingDown = false;

function beginShutdown() {
  if (shuttingDown) return;
  shuttingDown = true;
  for (const l of [...shutdownListeners]) l();
  shutdownListeners.clear();
}

/** Register `fn` to run when the process is told to stop (SIGTERM/SIGINT). Returns an unregister function. */
export function onShutdown(fn: () => void): () => void {
  if (!globalForEvents.__envaceShutdownHooked) {
    globalForEvents.__envaceShutdownHooked = true;
    // Under `next start` its own handler closes the server and waits for open responses; ending the
    // streams here lets it finish at once. Under scripts/web.ts the same happens on its shutdown event.
    for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
      const handler = () => {
        beginShutdown();
        // Alone on this signal, we would have replaced Node's default (exit); keep that behaviour.
        if (process.listenerCount(signal) === 1) setImmediate(() => process.exit(code));
      };
      process.on(signal, handler);
    }
    process.on("envace:shutdown" as never, beginShutdown);
  }
  if (shuttingDown) {
    fn();
    return () => {};
  }
  shutdownListeners.add(fn);
  return () => shutdownListeners.delete(fn);
}

export function isShuttingDown(): boolean {
  return shuttingDown;
}
