/**
 * The live change stream the app's pages follow (GET /api/events, server-sent events), read with the
 * API token. Signals name what changed (`{ t: "run", id, status }`), never the data: the caller reads
 * the changed object through the REST API. Dropped connections are re-opened with backoff, and
 * `onConnect` runs on every (re)connection — and on the server's `resync` message, sent when signals may
 * have been lost — so nothing that changed in between is missed.
 */
import { changeEventSchema, type ChangeEvent } from "../contracts/events";
import { ApiError, type ApiClient } from "./client";

export interface FollowOptions {
  signal: AbortSignal;
  onEvent: (e: ChangeEvent) => void | Promise<void>;
  onConnect?: () => void | Promise<void>;
  onDisconnect?: (reason: string) => void;
}

export interface SseMessage {
  /** The `event:` field ("message" when absent). */
  event: string;
  data: string;
}

/** Split an SSE byte stream into messages (comments, ids and retry hints ignored). */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event = "message";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.search(/\r?\n/)) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer[nl] === "\r" ? 2 : 1));
      if (line === "") {
        if (data.length) yield { event, data: data.join("\n") };
        data = [];
        event = "message";
      } else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      else if (line.startsWith("event:")) event = line.slice(6).trim();
    }
  }
}

export async function followEvents(client: ApiClient, opts: FollowOptions): Promise<void> {
  let backoffMs = 500;
  while (!opts.signal.aborted) {
    try {
      const res = await fetch(`${client.baseUrl.replace(/\/$/, "")}/api/events`, {
        headers: { ...client.authHeader, accept: "text/event-stream" },
        signal: opts.signal,
      });
      if (res.status === 401 || res.status === 403) throw new ApiError(res.status, "UNAUTHORIZED", "the server refused the token for the live event stream");
      if (!res.ok || !res.body) throw new Error(`event stream answered HTTP ${res.status}`);
      backoffMs = 500;
      await opts.onConnect?.();
      for await (const message of sseMessages(res.body)) {
        if (message.event === "resync") {
          await opts.onConnect?.();
          continue;
        }
        let json: unknown;
        try {
          json = JSON.parse(message.data);
        } catch {
          continue;
        }
        const event = changeEventSchema.safeParse(json);
        if (event.success) await opts.onEvent(event.data);
      }
      opts.onDisconnect?.("the server closed the event stream");
    } catch (err) {
      if (opts.signal.aborted) return;
      if (err instanceof ApiError) throw err;
      opts.onDisconnect?.((err as Error).message);
    }
    if (opts.signal.aborted) return;
    await new Promise((r) => setTimeout(r, backoffMs));
    backoffMs = Math.min(10_000, backoffMs * 2);
  }
}
