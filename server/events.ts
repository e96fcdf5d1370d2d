/**
 * Change signals for the live UI: one LISTEN connection per server process fans Postgres
 * notifications (emitted by triggers on run, step, run_log, checkpoint and node) out to SSE subscribers.
 */
import { EventEmitter } from "node:events";
import pg from "pg";
import { changeEventSchema, type ChangeEvent } from "../contracts/events";

export type { ChangeEvent };

const globalForEvents = globalThis as unknown as { __envaceEvents?: Promise<EventEmitter> };

async function connect(emitter: EventEmitter): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  client.on("notification", (msg) => {
    if (!msg.payload) return;
    try {
      const event = changeEventSchema.safeParse(JSON.parse(msg.payload));
      if (event.success) emitter.emit("change", event.data);
    } catch {
      /* ignore foreign payloads */
    }
  });
  client.on("error", () => {
    // Reconnect after a dropped connection; subscribers keep their listeners.
    client.end().catch(() => {});
    setTimeout(() => connect(emitter).catch(() => {}), 1000);
  });
  await client.connect();
  await client.query("LISTEN envace_events");
}

export function getChangeEvents(): Promise<EventEmitter> {
  globalForEvents.__envaceEvents ??= (async () => {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    await connect(emitter);
    return emitter;
  })();
  return globalForEvents.__envaceEvents;
}
