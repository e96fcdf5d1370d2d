import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRunRows } from "../../../test/fixtures/run-rows";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { quickstartPreset } from "../../../contracts/run-config";

describe("runs API against real Postgres", () => {
  let member: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    viewer = await signUp("viewer");
    await registerCheckedNode(prisma); // the embedded node the configs name
  });
  afterAll(async () => {
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
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
    for (const call of [() => anon.runs.checkpoints({ runId: someRun.id }), () => anon.runs.nodes({ runId: someRun.id })]) await expectTrpcError(call(), "UNAUTHORIZED");
  });

  it("lists a run's checkpoints newest first and the health of every node it uses, with roles and without secrets", async () => {
    const runId = await seedRunRows(prisma, {
      name: "with-nodes",
      createdById: member.id,
      config: { policy: { node: "embedded", model: "tiny-gpt" }, rollout: { userSimulator: { node: "embedded", model: "user-m" } }, reward: { judge: { node: "judge-node", model: "judge-m" } } },
      checkpoints: [2, 4],
    });
    await prisma.node.update({ where: { name: "embedded" }, data: { health: "healthy", apiKeyEnc: "secret" } });
    const caller = await callerFor(viewer.headers);
    expect((await caller.runs.checkpoints({ runId })).map((c) => [c.step, c.statePath])).toEqual([
      [4, "state/4"],
      [2, "state/2"],
    ]);
    const nodes = await caller.runs.nodes({ runId });
    expect(nodes.map((n) => [n.name, n.roles, n.node?.health ?? null])).toEqual([
      ["embedded", ["policy (tiny-gpt)", "user simulator (user-m)"], "healthy"],
      ["judge-node", ["judge (judge-m)"], null],
    ]);
    expect(JSON.stringify(nodes)).not.toContain("secret");
    await expectTrpcError(caller.runs.nodes({ runId: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND");
  });
});
