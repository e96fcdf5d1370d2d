/** API tokens are managed from a browser session only: a token can neither mint, list nor revoke tokens. */
import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { bearer, callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";

async function rejection(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

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
    const mint = await rejection(viaToken.tokens.create({ name: "backdoor" }));
    expect(mint.code).toBe("FORBIDDEN");
    expect(mint.message).toMatch(/API tokens cannot manage API tokens; sign in to the web app/);
    expect((await rejection(viaToken.tokens.list())).code).toBe("FORBIDDEN");
    expect((await rejection(viaToken.tokens.revoke({ id: leaked.id }))).code).toBe("FORBIDDEN");
    expect(await prisma.apiToken.count({ where: { userId: user.id } })).toBe(1);

    // The owner revokes it from the session, and it stops working.
    await session.tokens.revoke({ id: leaked.id });
    expect((await rejection((await callerFor(bearer(leaked.token))).runs.list({}))).code).toBe("UNAUTHORIZED");
  });
});
