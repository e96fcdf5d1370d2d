import { describe, expect, it } from "vitest";
import { SignInThrottle } from "./sign-in-throttle";

describe("per-account sign-in throttle", () => {
  it("refuses an account after its fifth failure within the window, until the oldest failure ages out", () => {
    let now = 0;
    const t = new SignInThrottle(5, 15 * 60_000, () => now);
    for (let i = 0; i < 5; i++) {
      expect(t.check("Ann@Example.test").allowed).toBe(true);
      t.recordFailure("ann@example.test ");
      now += 60_000;
    }
    const refused = t.check("ann@example.test");
    expect(refused).toEqual({ allowed: false, retryAfterS: 10 * 60 });
    // Another account is not affected.
    expect(t.check("bob@example.test").allowed).toBe(true);
    now = 15 * 60_000 + 1;
    expect(t.check("ann@example.test").allowed).toBe(true);
  });

  it("forgets the failures on a successful sign-in", () => {
    const t = new SignInThrottle(2, 60_000, () => 0);
    t.recordFailure("a@x.test");
    t.recordSuccess("a@x.test");
    t.recordFailure("a@x.test");
    expect(t.check("a@x.test").allowed).toBe(true);
    t.recordFailure("a@x.test");
    expect(t.check("a@x.test").allowed).toBe(false);
  });
});
