/** Users and roles through the real tRPC router against real Postgres. */
import { beforeAll, describe, expect, it } from "vitest";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";

describe("users API against real Postgres", () => {
  let admin: TestUser;
  let member: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp();
    member = await signUp();
    viewer = await signUp("viewer");
  });

  it("makes the first account admin and later ones members", async () => {
    const roles = await prisma.user.findMany({ where: { id: { in: [admin.id, member.id] } }, select: { id: true, role: true } });
    expect(roles.find((r) => r.id === admin.id)?.role).toBe("admin");
    expect(roles.find((r) => r.id === member.id)?.role).toBe("member");
    expect((await (await callerFor(admin.headers)).users.me())?.role).toBe("admin");
    expect(await (await callerFor()).users.me()).toBeNull();
  });

  it("lets only admins list users and change roles, and never demotes the last admin", async () => {
    await expectTrpcError((await callerFor(viewer.headers)).users.list(), "FORBIDDEN");
    await expectTrpcError((await callerFor(member.headers)).users.list(), "FORBIDDEN");
    await expectTrpcError((await callerFor(member.headers)).users.setRole({ userId: viewer.id, role: "admin" }), "FORBIDDEN");
    const caller = await callerFor(admin.headers);
    expect((await caller.users.list()).map((u) => u.email)).toEqual([admin.email, member.email, viewer.email]);
    expect((await caller.users.setRole({ userId: viewer.id, role: "member" })).role).toBe("member");
    await expectTrpcError(caller.users.setRole({ userId: admin.id, role: "member" }), "CONFLICT", /last admin/);
  });
});
