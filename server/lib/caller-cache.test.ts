import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { CALLER_TTL_MS, CallerCache, UNLINKED_CALLER_TTL_MS, sessionKey } from "./caller-cache";

/** A stand-in for server/events.ts ChangeFeed: connection state plus the signals the cache listens to. */
function feed(connected: boolean) {
  return Object.assign(new EventEmitter(), { connected });
}

describe("remembered callers", () => {
  it("keys a request by its better-auth session cookie, over http and https", () => {
    expect(sessionKey(new Headers({ cookie: "theme=dark; better-auth.session_token=abc.sig; x=1" }))).toBe("session:abc.sig");
    expect(sessionKey(new Headers({ cookie: "__Secure-better-auth.session_token=def.sig" }))).toBe("session:def.sig");
    expect(sessionKey(new Headers({ cookie: "theme=dark" }))).toBeNull();
    expect(sessionKey(new Headers())).toBeNull();
  });

  it("remembers a caller for CALLER_TTL_MS while auth signals are heard, and forgets everyone on one", () => {
    const f = feed(true);
    const cache = new CallerCache();
    cache.attach(f);
    cache.set("session:a", { id: "u1" }, undefined, 0);
    expect(cache.get("session:a", CALLER_TTL_MS - 1)).toEqual({ id: "u1" });
    expect(cache.get("session:a", CALLER_TTL_MS)).toBeUndefined();

    cache.set("session:a", { id: "u1" }, undefined, 0);
    cache.set("token:b", { id: "u2" }, undefined, 0);
    f.emit("auth");
    expect(cache.get("session:a", 1)).toBeUndefined();
    expect(cache.get("token:b", 1)).toBeUndefined();
  });

  it("never remembers a session past its expiry", () => {
    const cache = new CallerCache();
    cache.attach(feed(true));
    cache.set("session:a", { id: "u1" }, new Date(1000), 0);
    expect(cache.get("session:a", 999)).toEqual({ id: "u1" });
    expect(cache.get("session:a", 1000)).toBeUndefined();
  });

  it("trusts a caller only UNLINKED_CALLER_TTL_MS while signals cannot be heard, and forgets everyone when the link changes", () => {
    const f = feed(false);
    const cache = new CallerCache();
    cache.attach(f);
    cache.set("session:a", { id: "u1" }, undefined, 0);
    expect(cache.get("session:a", UNLINKED_CALLER_TTL_MS - 1)).toEqual({ id: "u1" });
    expect(cache.get("session:a", UNLINKED_CALLER_TTL_MS)).toBeUndefined();

    cache.set("session:a", { id: "u1" }, undefined, 0);
    f.emit("up"); // signals missed before now are lost for good
    expect(cache.get("session:a", 1)).toBeUndefined();
    cache.set("session:a", { id: "u1" }, undefined, 0);
    expect(cache.get("session:a", UNLINKED_CALLER_TTL_MS + 1)).toEqual({ id: "u1" });
    f.emit("down");
    expect(cache.get("session:a", 2)).toBeUndefined();
    cache.set("session:a", { id: "u1" }, undefined, 0);
    expect(cache.get("session:a", UNLINKED_CALLER_TTL_MS)).toBeUndefined();
  });

  it("looks a caller up once for a page's parallel requests, and never remembers a look-up that began before a signal", async () => {
    const f = feed(true);
    const cache = new CallerCache();
    cache.attach(f);
    let loads = 0;
    let finish!: (v: { value: { id: string } | null }) => void;
    const load = () => {
      loads++;
      return new Promise<{ value: { id: string } | null }>((resolve) => (finish = resolve));
    };
    const parallel = Array.from({ length: 12 }, () => cache.recall("session:a", load));
    finish({ value: { id: "u1" } });
    expect(await Promise.all(parallel)).toEqual(Array(12).fill({ id: "u1" }));
    expect(loads).toBe(1);
    expect(await cache.recall("session:a", load)).toEqual({ id: "u1" }); // remembered: no new look-up
    expect(loads).toBe(1);

    // A role change is signalled while a look-up is in flight: its (old) answer is not remembered.
    f.emit("auth");
    const before = cache.recall("session:a", load);
    const finishBefore = finish;
    f.emit("auth");
    const after = cache.recall("session:a", load); // not joined to the stale look-up
    expect(loads).toBe(3);
    finish({ value: { id: "u1-new" } });
    await after;
    finishBefore({ value: { id: "u1-old" } });
    expect(await before).toEqual({ id: "u1-old" }); // its own requests get it …
    expect(cache.get("session:a")).toEqual({ id: "u1-new" }); // … but it is not remembered

    // Nobody: answered, not remembered.
    cache.clear();
    const nobody = cache.recall("session:b", load);
    finish({ value: null });
    expect(await nobody).toBeNull();
    expect(cache.size).toBe(0);
  });
});

