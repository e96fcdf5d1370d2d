/** Helpers for integration tests: real users through better-auth, tRPC callers with real contexts. */
import { inject } from "vitest";
import crypto from "node:crypto";
import { TRPCError } from "@trpc/server";
import { expect } from "vitest";

process.env.DATABASE_URL ??= inject("databaseUrl");

const { getAuth } = await import("../server/auth");
const { prisma } = await import("../lib/db");
const { createCaller } = await import("../server/root");
const { createContext } = await import("../server/trpc/context");

export { prisma };

export interface TestUser {
  id: string;
  email: string;
  headers: Headers;
}

/** Sign up through better-auth and return the session cookie as request headers. */
export async function signUp(role?: "admin" | "member" | "viewer"): Promise<TestUser> {
  const email = `u-${crypto.randomBytes(5).toString("hex")}@example.test`;
  const res = await getAuth().api.signUpEmail({ body: { email, password: "password-123", name: "Test User" }, asResponse: true });
  if (!res.ok) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const user = await prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
  if (role) await prisma.user.update({ where: { id: user.id }, data: { role } });
  return { id: user.id, email, headers: new Headers({ cookie }) };
}

export async function callerFor(headers: Headers = new Headers()) {
  return createCaller(await createContext({ headers }));
}

export function bearer(token: string): Headers {
  return new Headers({ authorization: `Bearer ${token}` });
}

/** Wait until `check` returns a truthy value (polls; for asserting asynchronous worker effects). */
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function resetDatabase() {
  await prisma.$executeRawUnsafe(
    `truncate "app_setting", "mcp_server", "instance", "dataset", "run_log", "checklist_verdict", "turn", "trajectory", "metric_point", "step", "checkpoint", "share_link", "report", "run", "api_token", "session", "account", "verification", "user", "node" cascade`,
  );
  await prisma.$executeRawUnsafe(`delete from pgboss.job`).catch(() => {});
}

/** Expect a tRPC call to fail with `code` (and a message matching `message`); returns the error. */
export async function expectTrpcError(p: Promise<unknown>, code: TRPCError["code"], message?: RegExp) {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(TRPCError);
  expect((err as TRPCError).code).toBe(code);
  if (message) expect((err as TRPCError).message).toMatch(message);
  return err as TRPCError;
}
