import { afterEach, describe, expect, it, vi } from "vitest";
import { CALLER_TTL_MS, forgetCallers, rememberCaller, rememberedCaller, sessionKey } from "./caller-cache";

describe("remembered callers", () => {
  afterEach(() => {
    vi.useRealTimers();
    forgetCallers();
  });

  it("keys a request by its better-auth session cookie, over http and https", () => {
    expect(sessionKey(new Headers({ cookie: "theme=dark; better-auth.session_token=abc.sig; x=1" }))).toBe("session:abc.sig");
    expect(sessionKey(new Headers({ cookie: "__Secure-better-auth.session_token=def.sig" }))).toBe("session:def.sig");
    expect(sessionKey(new Headers({ cookie: "theme=dark" }))).toBeNull();
    expect(sessionKey(new Headers())).toBeNull();
  });

  it("remembers a caller for a few seconds, and forgets everyone at once on demand", () => {
    vi.useFakeTimers();
    rememberCaller("session:a", { id: "u1" });
    expect(rememberedCaller("session:a")).toEqual({ id: "u1" });
    vi.advanceTimersByTime(CALLER_TTL_MS + 1);
    expect(rememberedCaller("session:a")).toBeUndefined();
    rememberCaller("session:a", { id: "u1" });
    forgetCallers();
    expect(rememberedCaller("session:a")).toBeUndefined();
  });
});
