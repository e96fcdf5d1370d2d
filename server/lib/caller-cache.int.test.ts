/**
 * Remembered callers against real Postgres: a change made outside this process (straight in the
 * database, as another web process or the CLI would) is honoured at once through the auth change
 * signals, and the writes that change nothing a caller relies on (a token's lastUsedAt, a session
 * extended) do not make every process forget everyone.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ChangeEvent } from "../../contracts/events";
import { getChangeFeed } from "../events";
import { resolveUser } from "../trpc/context";
import { bearer, callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { sha256 } from "../../lib/secrets";
import { callerCache, sessionKey } from "./caller-cache";

const cache = () => callerCache(getChangeFeed);

/**
 * Everything signalled before now has been heard: a marker sent after it arrives on the same LISTEN
 * connection, and notifications arrive in commit order.
 */
async function signalsDrained(): Promise<void> {
  const id = `marker-${Math.random()}`;
  const heard = new Promise<void>((resolve) => {
    const on = (e: ChangeEvent) => {
      if (e.id !== id) return;
      getChangeFeed().off("change", on);
      resolve();
    };
    getChangeFeed().on("change", on);
  });
  await prisma.$executeRaw`select pg_notify('envace_events', json_build_object('t', 'node', 'id', ${id}::text)::text)`;
  await heard;
}

describe("remembered callers", () => {
  let member: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    cache();
    expect(await getChangeFeed().whenConnected()).toBe(true);
  });

  it("remembers a session's caller, and forgets it when the role is changed in the database", async () => {
    expect((await resolveUser(member.headers))?.role).toBe("member");
    const key = sessionKey(member.headers)!;
    expect(cache().get(key)).toMatchObject({ id: member.id, role: "member" });

    await prisma.user.update({ where: { id: member.id }, data: { role: "viewer" } });
    await eventually(async () => cache().get(key) === undefined, 10_000, "the role change's signal");
    expect((await resolveUser(member.headers))?.role).toBe("viewer");
    await expect((await callerFor(member.headers)).runs.create({ name: "no", config: {} })).rejects.toThrow(/read-only/);
  });

  it("forgets a session deleted in the database (signed out elsewhere)", async () => {
    const user = await signUp("member");
    expect((await resolveUser(user.headers))?.id).toBe(user.id);
    await prisma.session.deleteMany({ where: { userId: user.id } });
    await eventually(async () => cache().get(sessionKey(user.headers)!) === undefined, 10_000, "the session deletion's signal");
    expect(await resolveUser(user.headers)).toBeNull();
  });

  it("keeps a session's caller when the session is only extended, and forgets it when the session is shortened", async () => {
    const user = await signUp("member");
    const key = sessionKey(user.headers)!;
    await resolveUser(user.headers);
    const session = await prisma.session.findFirstOrThrow({ where: { userId: user.id }, select: { id: true, expiresAt: true } });
    await prisma.session.update({ where: { id: session.id }, data: { expiresAt: new Date(session.expiresAt.getTime() + 86_400_000) } });
    await signalsDrained();
    expect(cache().get(key)).toMatchObject({ id: user.id });

    // Shortened (an expiry moved earlier): forgotten on the signal.
    await prisma.session.update({ where: { id: session.id }, data: { expiresAt: new Date(Date.now() + 1000) } });
    await eventually(async () => cache().get(key) === undefined, 10_000, "the shortened session's signal");
  });

  it("keeps a token's caller across lastUsedAt writes, and forgets it when the token is revoked in the database", async () => {
    const created = await (await callerFor(member.headers)).tokens.create({ name: "script" });
    const key = `token:${sha256(created.token)}`;
    expect((await resolveUser(bearer(created.token)))?.id).toBe(member.id);
    expect(cache().get(key)).toMatchObject({ id: member.id, via: "token" });
    await prisma.apiToken.update({ where: { id: created.id }, data: { lastUsedAt: new Date() } });
    await signalsDrained();
    expect(cache().get(key)).toMatchObject({ id: member.id, via: "token" });

    await prisma.apiToken.update({ where: { id: created.id }, data: { revokedAt: new Date() } });
    await eventually(async () => cache().get(key) === undefined, 10_000, "the revocation's signal");
    expect(await resolveUser(bearer(created.token))).toBeNull();
  });
});
