/**
 * Accounts: the first account is admin even under concurrent sign-ups, and sign-in throttling cannot be
 * walked around with X-Forwarded-For (per address, via a real HTTP server doing what scripts/web.ts does)
 * while users behind one trusted proxy do not lock each other out (per account).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRoute, type Bridge } from "../test/http-bridge";
import { prisma, resetDatabase } from "../test/helpers";
import { parseTrustedProxies } from "../lib/client-address";
import { POST } from "../app/api/auth/[...all]/route";
import { getAuth } from "./auth";

const password = "correct-horse-1";

async function signUpDirect(email: string) {
  const res = await getAuth().api.signUpEmail({ body: { email, password, name: email.split("@")[0]! }, asResponse: true });
  if (!res.ok) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
}

function signIn(bridge: Bridge, email: string, pw: string, forwardedFor?: string) {
  return fetch(`${bridge.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
    body: JSON.stringify({ email, password: pw }),
  });
}

describe("first account is admin", () => {
  it("of six concurrent sign-ups on a fresh install, exactly one becomes admin (five rounds)", async () => {
    for (let round = 0; round < 5; round++) {
      await resetDatabase();
      const emails = Array.from({ length: 6 }, (_, i) => `first-${round}-${i}@example.test`);
      await Promise.all(emails.map(signUpDirect));
      const users = await prisma.user.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true, role: true } });
      expect(users).toHaveLength(6);
      expect(users.filter((u) => u.role === "admin"), `round ${round}`).toHaveLength(1);
      expect(users[0]!.role).toBe("admin");
    }
  });

  it("a later account never becomes admin, even when no admin is left", async () => {
    await resetDatabase();
    await signUpDirect("one@example.test");
    await prisma.user.updateMany({ data: { role: "member" } });
    await signUpDirect("two@example.test");
    expect(await prisma.user.count({ where: { role: "admin" } })).toBe(0);
  });
});

describe("sign-in throttling", () => {
  let direct: Bridge; // the web server with no trusted proxy: the socket address is the client
  let behindProxy: Bridge; // the web server behind a trusted reverse proxy on 127.0.0.1

  beforeAll(async () => {
    await resetDatabase();
    await signUpDirect("admin@example.test");
    await signUpDirect("ann@example.test");
    await signUpDirect("ben@example.test");
    direct = await serveRoute(POST);
    behindProxy = await serveRoute(POST, parseTrustedProxies("127.0.0.1"));
  });
  afterAll(async () => {
    await direct?.close();
    await behindProxy?.close();
  });

  it("a spoofed X-Forwarded-For does not reset the per-address limit", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      // A different account and a different claimed address every time: only the real address can limit.
      const res = await signIn(direct, `nobody-${i}@example.test`, "wrong-password", `203.0.113.${i + 1}`);
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3).every((s) => s === 429), statuses.join(",")).toBe(true);
  });

  it("behind a trusted proxy, the limit follows each client's forwarded address, not the proxy's", async () => {
    const blocked: number[] = [];
    for (let i = 0; i < 5; i++) blocked.push((await signIn(behindProxy, `x-${i}@example.test`, "wrong", "198.51.100.10")).status);
    expect(blocked).toEqual([401, 401, 401, 429, 429]);
    // Another user behind the same proxy is not affected.
    expect((await signIn(behindProxy, "ben@example.test", password, "198.51.100.11")).status).toBe(200);
  });

  it("five wrong passwords for one account from five addresses throttle that account only", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await signIn(behindProxy, "ann@example.test", `guess-${i}`, `192.0.2.${i + 1}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const refused = await signIn(behindProxy, "ANN@example.test", password, "192.0.2.100");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await refused.json()).message).toMatch(/too many failed sign-ins for this account; try again in 15 minutes/);
    // Ben, behind the same proxy, signs in.
    expect((await signIn(behindProxy, "ben@example.test", password, "192.0.2.101")).status).toBe(200);
  });
});
