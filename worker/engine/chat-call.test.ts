import { describe, expect, it } from "vitest";
import { completeWithin } from "./chat-call";
import type { ChatClient, ChatRequest } from "./io";

describe("completeWithin", () => {
  it("hands the limit to a client that owns its timeouts and does not race it", async () => {
    const seen: ChatRequest[] = [];
    const client: ChatClient = {
      ownsTimeouts: true,
      complete: async (req) => {
        seen.push(req);
        await new Promise((r) => setTimeout(r, 60));
        return { text: "late but allowed" };
      },
    };
    expect(await completeWithin(client, 20, { messages: [{ role: "user", content: "x" }] })).toEqual({ text: "late but allowed" });
    expect(seen[0].timeoutMs).toBe(20);
    expect(seen[0].signal).toBeUndefined();
  });

  it("aborts and rejects a plain client that runs past the limit, even one ignoring its signal", async () => {
    let signal: AbortSignal | undefined;
    const client: ChatClient = {
      complete: (req) => {
        signal = req.signal;
        return new Promise(() => {});
      },
    };
    await expect(completeWithin(client, 30, { messages: [{ role: "user", content: "x" }] })).rejects.toThrow(/timed out after 30 ms/);
    expect(signal?.aborted).toBe(true);
  });

  it("passes the caller's cancellation on to a plain client", async () => {
    const outer = new AbortController();
    let inner: AbortSignal | undefined;
    const client: ChatClient = {
      complete: (req) =>
        new Promise((_, reject) => {
          inner = req.signal;
          req.signal!.addEventListener("abort", () => reject(new Error("cancelled")));
        }),
    };
    const call = completeWithin(client, 10_000, { messages: [{ role: "user", content: "x" }], signal: outer.signal });
    outer.abort();
    await expect(call).rejects.toThrow("cancelled");
    expect(inner?.aborted).toBe(true);
  });
});
