/** Personal API tokens through the real tRPC router against real Postgres; managed from a browser session only. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";

describe("API tokens against real Postgres", () => {
  let member: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    await signUp();
    member = await signUp();
    await registerCheckedNode(prisma); // the embedded node the configs name
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

describe("API tokens need a browser session", () => {
  let user: TestUser;
  beforeAll(async () => {
    await resetDatabase();
    user = await signUp();
  });

  it("a token cannot mint a token, so a leaked one cannot outlive its revocation", async () => {
    const session = await callerFor(user.headers);
    const leaked = await session.tokens.create({ name: "ci" });
    const viaToken = await callerFor(bearer(leaked.token));
    // The token works for the API …
    expect((await viaToken.users.me())?.id).toBe(user.id);
    // … but not for token management.
    await expectTrpcError(viaToken.tokens.create({ name: "backdoor" }), "FORBIDDEN", /API tokens cannot manage API tokens; sign in to the web app/);
    await expectTrpcError(viaToken.tokens.list(), "FORBIDDEN");
    await expectTrpcError(viaToken.tokens.revoke({ id: leaked.id }), "FORBIDDEN");
    expect(await prisma.apiToken.count({ where: { userId: user.id } })).toBe(1);

    // The owner revokes it from the session, and it stops working.
    await session.tokens.revoke({ id: leaked.id });
    await expectTrpcError((await callerFor(bearer(leaked.token))).runs.list({}), "UNAUTHORIZED");
  });
});
