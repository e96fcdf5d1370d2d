/**
 * Nodes through the real tRPC router against real Postgres: write-only keys, the node doctor, roles, the
 * deletion guard; no credentials in URLs, owner-or-admin removal, and only admins probe URLs members typed.
 * The doctor's own behaviour through the API: doctor.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { insertRun, validRunConfig } from "../runs/service";

describe("nodes API against real Postgres", () => {
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

  it("keeps node API keys write-only", async () => {
    const caller = await callerFor(member.headers);
    await caller.nodes.add({ name: "gpu-a", kind: "openai", baseUrl: "http://127.0.0.1:9", apiKey: "sk-very-secret" });
    const nodes = await caller.nodes.list();
    const node = nodes.find((n) => n.name === "gpu-a")!;
    expect(node.hasApiKey).toBe(true);
    expect(JSON.stringify(nodes)).not.toContain("sk-very-secret");
    const row = await prisma.node.findUniqueOrThrow({ where: { name: "gpu-a" } });
    expect(row.apiKeyEnc).not.toContain("sk-very-secret");
    // A URL a member typed is probed by an admin (see "lets members test only URLs an admin vouched for").
    const tested = await (await callerFor(admin.headers)).nodes.doctor({ id: node.id });
    expect(tested.reports[0]!.ok).toBe(false);
    expect(tested.node.health).toBe("unhealthy");
    await expectTrpcError(caller.nodes.add({ name: "gpu-a", kind: "openai", baseUrl: "http://x:1" }), "CONFLICT");
    await expectTrpcError(caller.nodes.add({ name: "Bad Name", kind: "openai", baseUrl: "nope" }), "BAD_REQUEST");
  });

  it("lets viewers read nodes but not change them", async () => {
    const v = await callerFor(viewer.headers);
    await expect(v.nodes.list()).resolves.toBeTruthy();
    await expectTrpcError(v.nodes.add({ name: "n1", kind: "openai", baseUrl: "http://127.0.0.1:1" }), "FORBIDDEN");
    const [node] = await v.nodes.list();
    await expectTrpcError(v.nodes.remove({ id: node!.id }), "FORBIDDEN");
    await expectTrpcError(v.nodes.doctor({ id: node!.id }), "FORBIDDEN");
    await expectTrpcError(v.nodes.update({ id: node!.id, baseUrl: "http://127.0.0.1:2" }), "FORBIDDEN");
  });

  it("refuses to delete a node that a queued or running run uses in any role, naming the runs and roles", async () => {
    const caller = await callerFor(member.headers);
    const add = (name: string) => caller.nodes.add({ name, kind: "openai", baseUrl: "http://127.0.0.1:9" });
    const [policy, judge, userSim, toolSim, idle] = await Promise.all(["guard-policy", "guard-judge", "guard-user", "guard-tool", "guard-idle"].map(add));
    const run = await caller.runs.create({
      name: "needs-nodes",
      config: {
        kind: "eval",
        policy: { node: "guard-policy", model: "m" },
        data: { dataset: "tau2:retail" },
        rollout: { paradigm: "simulator", simulator: { node: "guard-tool", model: "t" }, userSimulator: { node: "guard-user", model: "u" } },
        reward: { judge: { node: "guard-judge", model: "j" } },
      },
    });
    await registerCheckedNode(prisma); // the second run's policy
    const second = await caller.runs.create({ name: "also-judges", config: { reward: { judge: { node: "guard-judge", model: "j2" } } } });
    await prisma.run.update({ where: { id: second.id }, data: { status: "running" } });

    await expectTrpcError(caller.nodes.remove({ id: policy!.id }), "CONFLICT", /node guard-policy is used by 1 queued or running run: "needs-nodes" \(queued; policy\)/);
    await expectTrpcError(caller.nodes.remove({ id: toolSim!.id }), "CONFLICT", /"needs-nodes" \(queued; tool simulator\)/);
    await expectTrpcError(caller.nodes.remove({ id: userSim!.id }), "CONFLICT", /"needs-nodes" \(queued; user simulator\)/);
    const judged = await expectTrpcError(caller.nodes.remove({ id: judge!.id }), "CONFLICT", /used by 2 queued or running runs: "needs-nodes" \(queued; judge\), "also-judges" \(running; judge\)/);
    expect((judged.cause as { fieldErrors?: { message: string }[] }).fieldErrors?.map((f) => f.message)).toEqual(["needs-nodes: judge", "also-judges: judge"]);
    expect(await prisma.node.count({ where: { name: { startsWith: "guard-" } } })).toBe(5);

    // A node no active run uses goes; once the runs end, so do the others.
    await caller.nodes.remove({ id: idle!.id });
    await caller.runs.cancel({ id: run.id });
    await prisma.run.update({ where: { id: second.id }, data: { status: "succeeded" } });
    for (const n of [policy, judge, userSim, toolSim]) await caller.nodes.remove({ id: n!.id });
    expect(await prisma.node.count({ where: { name: { startsWith: "guard-" } } })).toBe(0);
    await expectTrpcError(caller.nodes.remove({ id: idle!.id }), "NOT_FOUND");
  });

  it("a removal racing a launch that names the node waits for the launch, then refuses", async () => {
    const caller = await callerFor(member.headers);
    const node = await caller.nodes.add({ name: "race-policy", kind: "openai", baseUrl: "http://127.0.0.1:9" });
    let removal: Promise<unknown> | undefined;
    await prisma.$transaction(async (tx) => {
      await insertRun(tx, member.id, { name: "racing-launch", tags: [] }, validRunConfig({ kind: "eval", policy: { node: "race-policy", model: "m" } }));
      // The launch is not committed yet: the removal must wait for it rather than miss it.
      removal = caller.nodes.remove({ id: node.id }).then(
        () => "removed",
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 500));
    });
    const outcome = await removal;
    expect(outcome).toBeInstanceOf(TRPCError);
    expect((outcome as TRPCError).code).toBe("CONFLICT");
    expect((outcome as TRPCError).message).toMatch(/node race-policy is used by 1 queued or running run: "racing-launch" \(queued; policy\)/);
    expect(await prisma.node.count({ where: { name: "race-policy" } })).toBe(1);
  });
});

async function rejection(p: Promise<unknown>): Promise<TRPCError> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return err as TRPCError;
}

describe("nodes: URLs, ownership and probing", () => {
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    admin = await signUp();
    alice = await signUp("member");
    bob = await signUp("member");
    viewer = await signUp("viewer");
  });

  it("refuses a URL with a user name or password, naming the field, and stores nothing", async () => {
    const caller = await callerFor(alice.headers);
    for (const baseUrl of ["http://user:hunter2@gpu-1:8000", "https://token@gpu-1:8000/v1"]) {
      const err = await rejection(caller.nodes.add({ name: "with-creds", kind: "openai", baseUrl }));
      expect(err.code).toBe("BAD_REQUEST");
      expect(err.message).toMatch(/must not contain a user name or password/);
      expect(err.message).not.toContain("hunter2");
    }
    expect(await prisma.node.count({ where: { name: "with-creds" } })).toBe(0);
  });

  it("never shows credentials of a URL stored before they were refused", async () => {
    await prisma.node.create({ data: { name: "legacy", kind: "openai", baseUrl: "http://old:s3cret@legacy-host:8000/v1" } });
    const nodes = await (await callerFor(viewer.headers)).nodes.list();
    const legacy = nodes.find((n) => n.name === "legacy")!;
    expect(legacy.baseUrl).toBe("http://legacy-host:8000/v1");
    expect(JSON.stringify(nodes)).not.toContain("s3cret");
  });

  it("lets the member who added a node, or an admin, remove it; no other member", async () => {
    const a = await (await callerFor(alice.headers)).nodes.add({ name: "alice-gpu", kind: "openai", baseUrl: "http://127.0.0.1:9" });
    const b = await (await callerFor(bob.headers)).nodes.add({ name: "bob-gpu", kind: "openai", baseUrl: "http://127.0.0.1:9" });

    const denied = await rejection((await callerFor(bob.headers)).nodes.remove({ id: a.id }));
    expect(denied.code).toBe("FORBIDDEN");
    expect(denied.message).toMatch(/only the member who added a node, or an admin, can remove it/);
    expect(await prisma.node.count({ where: { id: a.id } })).toBe(1);

    const bobsView = await (await callerFor(bob.headers)).nodes.list();
    expect(bobsView.find((n) => n.id === a.id)).toMatchObject({ canRemove: false, addedBy: { email: alice.email } });
    expect(bobsView.find((n) => n.id === b.id)).toMatchObject({ canRemove: true });

    await (await callerFor(alice.headers)).nodes.remove({ id: a.id });
    await (await callerFor(admin.headers)).nodes.remove({ id: b.id });
    expect(await prisma.node.count({ where: { id: { in: [a.id, b.id] } } })).toBe(0);
  });

  it("lets members test only URLs an admin vouched for; testing a URL a member typed is for admins", async () => {
    const mine = await (await callerFor(alice.headers)).nodes.add({ name: "alice-probe", kind: "openai", baseUrl: "http://127.0.0.1:9" });
    const vetted = await (await callerFor(admin.headers)).nodes.add({ name: "admin-gpu", kind: "openai", baseUrl: "http://127.0.0.1:9" });
    const system = await prisma.node.create({ data: { name: "embedded-sys", kind: "embedded", baseUrl: "http://127.0.0.1:9" }, select: { id: true } });
    const alices = await callerFor(alice.headers);

    // Even her own node: a member must not learn which ports answer on the server's network.
    const denied = await rejection(alices.nodes.doctor({ id: mine.id }));
    expect(denied.code).toBe("FORBIDDEN");
    expect(denied.message).toMatch(/members may test only nodes an admin added/);
    expect((await prisma.node.findUniqueOrThrow({ where: { id: mine.id } })).health).toBe("unknown");

    expect((await alices.nodes.doctor({ id: vetted.id })).reports[0]!.ok).toBe(false);
    expect((await alices.nodes.doctor({ id: system.id })).reports[0]!.ok).toBe(false);
    expect((await (await callerFor(admin.headers)).nodes.doctor({ id: mine.id })).node.health).toBe("unhealthy");
    expect((await rejection((await callerFor(viewer.headers)).nodes.doctor({ id: vetted.id }))).code).toBe("FORBIDDEN");

    const listed = await alices.nodes.list();
    expect(listed.find((n) => n.id === mine.id)).toMatchObject({ canTest: false, canRemove: true });
    expect(listed.find((n) => n.id === vetted.id)).toMatchObject({ canTest: true, canRemove: false });
    expect(listed.find((n) => n.id === system.id)).toMatchObject({ canTest: true, canRemove: false });
  });
});
