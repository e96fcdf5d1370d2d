import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { bearer, callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { quickstartPreset } from "../../../contracts/run-config";

async function expectTrpcError(p: Promise<unknown>, code: TRPCError["code"], message?: RegExp) {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(TRPCError);
  expect((err as TRPCError).code).toBe(code);
  if (message) expect((err as TRPCError).message).toMatch(message);
  return err as TRPCError;
}

describe("runs API against real Postgres", () => {
  let admin: TestUser;
  let member: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp();
    member = await signUp();
    viewer = await signUp("viewer");
  });
  afterAll(async () => {
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("makes the first account admin and later ones members", async () => {
    const roles = await prisma.user.findMany({ where: { id: { in: [admin.id, member.id] } }, select: { id: true, role: true } });
    expect(roles.find((r) => r.id === admin.id)?.role).toBe("admin");
    expect(roles.find((r) => r.id === member.id)?.role).toBe("member");
    const me = await (await callerFor(admin.headers)).users.me();
    expect(me?.role).toBe("admin");
  });

  it("creates a run from a validated config, queued with its job in the same transaction", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "quick", tags: ["smoke"], config: quickstartPreset });
    expect(run.status).toBe("queued");
    expect(run.totalSteps).toBe(40);
    expect(run.paradigm).toBe("rehearse");
    const jobs = await prisma.$queryRawUnsafe<{ n: number }[]>(
      `select count(*)::int as n from pgboss.job where name = 'envace-run' and data->>'runId' = $1`,
      run.id,
    );
    expect(jobs[0]!.n).toBe(1);
    const logs = await caller.runs.logs({ runId: run.id });
    expect(logs.map((l) => l.message)).toContain("run queued (train, 40 steps)");
  });

  it("rejects an invalid config naming the field, and writes nothing", async () => {
    const before = await prisma.run.count();
    const caller = await callerFor(member.headers);
    const err = await expectTrpcError(
      caller.runs.create({ name: "bad", config: { data: { instancesPerStep: 0 }, rollout: { paradigm: "teleport" } } }),
      "BAD_REQUEST",
      /invalid run config/,
    );
    const fieldErrors = (err.cause as { fieldErrors?: { path: string }[] }).fieldErrors!;
    expect(fieldErrors.map((f) => f.path)).toEqual(expect.arrayContaining(["config.data.instancesPerStep", "config.rollout.paradigm"]));
    expect(await prisma.run.count()).toBe(before);
  });

  it("rejects a simulator-paradigm config without a simulator node", async () => {
    const caller = await callerFor(member.headers);
    const err = await expectTrpcError(caller.runs.create({ name: "sim", config: { rollout: { paradigm: "simulator" } } }), "BAD_REQUEST");
    expect((err.cause as unknown as { fieldErrors: { path: string }[] }).fieldErrors[0]!.path).toBe("config.rollout.simulator");
  });

  it("lists runs newest first with keyset pagination and filters", async () => {
    const caller = await callerFor(member.headers);
    for (let i = 0; i < 5; i++) await caller.runs.create({ name: `page-${i}`, tags: i % 2 ? ["odd"] : [], config: {} });
    const first = await caller.runs.list({ limit: 2, search: "page-" });
    expect(first.items.map((r) => r.name)).toEqual(["page-4", "page-3"]);
    const second = await caller.runs.list({ limit: 2, search: "page-", cursor: first.nextCursor });
    expect(second.items.map((r) => r.name)).toEqual(["page-2", "page-1"]);
    const third = await caller.runs.list({ limit: 2, search: "page-", cursor: second.nextCursor });
    expect(third.items.map((r) => r.name)).toEqual(["page-0"]);
    expect(third.nextCursor).toBeNull();
    const odd = await caller.runs.list({ limit: 50, tag: "odd" });
    expect(odd.items.map((r) => r.name).sort()).toEqual(["page-1", "page-3"]);
    // list rows carry no config body
    expect(Object.keys(first.items[0]!)).not.toContain("config");
  });

  it("cancels a queued run, refuses to cancel it twice, and reports unknown ids", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "to-cancel", config: {} });
    const cancelled = await caller.runs.cancel({ id: run.id });
    expect(cancelled.status).toBe("cancelled");
    await expectTrpcError(caller.runs.cancel({ id: run.id }), "CONFLICT", /already finished \(cancelled\)/);
    await expectTrpcError(caller.runs.get({ id: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND");
    await expectTrpcError(caller.runs.get({ id: "not-a-uuid" }), "BAD_REQUEST");
  });

  it("resumes only failed or cancelled runs", async () => {
    const caller = await callerFor(member.headers);
    const run = await caller.runs.create({ name: "resume-me", config: {} });
    await expectTrpcError(caller.runs.resume({ id: run.id }), "CONFLICT", /only failed or cancelled/);
    await caller.runs.cancel({ id: run.id });
    const resumed = await caller.runs.resume({ id: run.id });
    expect(resumed.status).toBe("queued");
  });

  it("refuses unauthenticated calls and viewer writes", async () => {
    const anon = await callerFor();
    await expectTrpcError(anon.runs.list({}), "UNAUTHORIZED");
    await expectTrpcError(anon.runs.create({ name: "x", config: {} }), "UNAUTHORIZED");
    expect(await anon.users.me()).toBeNull();

    const v = await callerFor(viewer.headers);
    await expect(v.runs.list({})).resolves.toBeTruthy();
    await expectTrpcError(v.runs.create({ name: "x", config: {} }), "FORBIDDEN");
    const someRun = await (await callerFor(member.headers)).runs.create({ name: "viewer-target", config: {} });
    await expectTrpcError(v.runs.cancel({ id: someRun.id }), "FORBIDDEN");
    await expectTrpcError(v.nodes.add({ name: "n1", kind: "openai", baseUrl: "http://127.0.0.1:1" }), "FORBIDDEN");
    await expectTrpcError(v.users.list(), "FORBIDDEN");
    await expectTrpcError((await callerFor(member.headers)).users.list(), "FORBIDDEN");
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

  it("keeps node API keys write-only", async () => {
    const caller = await callerFor(member.headers);
    await caller.nodes.add({ name: "gpu-a", kind: "openai", baseUrl: "http://127.0.0.1:9", apiKey: "sk-very-secret" });
    const nodes = await caller.nodes.list();
    const node = nodes.find((n) => n.name === "gpu-a")!;
    expect(node.hasApiKey).toBe(true);
    expect(JSON.stringify(nodes)).not.toContain("sk-very-secret");
    const row = await prisma.node.findUniqueOrThrow({ where: { name: "gpu-a" } });
    expect(row.apiKeyEnc).not.toContain("sk-very-secret");
    // A member-added URL is probed by an admin (server/features/nodes/nodes.int.test.ts has the rules).
    const tested = await (await callerFor(admin.headers)).nodes.test({ id: node.id });
    expect(tested.probe.healthy).toBe(false);
    expect(tested.node.health).toBe("unhealthy");
    await expectTrpcError(caller.nodes.add({ name: "gpu-a", kind: "openai", baseUrl: "http://x:1" }), "CONFLICT");
    await expectTrpcError(caller.nodes.add({ name: "Bad Name", kind: "openai", baseUrl: "nope" }), "BAD_REQUEST");
  });
});
