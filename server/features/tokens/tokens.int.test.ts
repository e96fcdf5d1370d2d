/** Personal API tokens through the real tRPC router against real Postgres. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";

describe("API tokens against real Postgres", () => {
  let member: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    await signUp();
    member = await signUp();
  });
  afterAll(async () => {
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("accepts a personal API token as Bearer until it is revoked; stores only its hash", async () => {
    const session = await callerFor(member.headers);
    const created = await session.tokens.create({ name: "script" });
    expect(created.token).toMatch(/^envace_/);
    const stored = await prisma.apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(stored.tokenHash).not.toContain(created.token);
    expect(JSON.stringify(await session.tokens.list())).not.toContain(created.token);

    const viaToken = await callerFor(bearer(created.token));
    const run = await viaToken.runs.create({ name: "from-script", config: {} });
    expect(run.createdBy.email).toBe(member.email);

    await session.tokens.revoke({ id: created.id });
    await expectTrpcError((await callerFor(bearer(created.token))).runs.list({}), "UNAUTHORIZED");
    await expectTrpcError((await callerFor(bearer("envace_forged"))).runs.list({}), "UNAUTHORIZED");
  });
});
