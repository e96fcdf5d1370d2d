/**
 * Nodes through the real tRPC router (and REST) against real Postgres: write-only keys, the node doctor,
 * roles (only admins add, change and remove nodes), the deletion guard; base URLs in their normal form
 * (no credentials, query or fragment), and only admins probe URLs no admin vouched for.
 * The doctor's own behaviour through the API: doctor.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";
import { insertRun, validRunConfig } from "../runs/service";
import { handleRestRequest } from "../../openapi";

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
    const caller = await callerFor(admin.headers);
    await caller.nodes.add({ name: "gpu-a", kind: "openai", baseUrl: "http://127.0.0.1:9", apiKey: "sk-very-secret" });
    const nodes = await caller.nodes.list();
    const node = nodes.find((n) => n.name === "gpu-a")!;
    expect(node.hasApiKey).toBe(true);
    expect(JSON.stringify(nodes)).not.toContain("sk-very-secret");
    const row = await prisma.node.findUniqueOrThrow({ where: { name: "gpu-a" } });
    expect(row.apiKeyEnc).not.toContain("sk-very-secret");
    expect(JSON.stringify(await (await callerFor(member.headers)).nodes.list())).not.toContain("sk-very-secret");
    const tested = await caller.nodes.doctor({ id: node.id });
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
    const admins = await callerFor(admin.headers);
    // Registered with passing reports (the subject here is the guard, not the doctor).
    const [policy, judge, userSim, toolSim, idle] = await Promise.all(
      ([["guard-policy", ["m"]], ["guard-judge", ["j", "j2"]], ["guard-user", ["u"]], ["guard-tool", ["t"]], ["guard-idle", ["m"]]] as const).map(([name, models]) =>
        registerCheckedNode(prisma, name, [...models], { kind: "openai" }),
      ),
    );
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

    await expectTrpcError(admins.nodes.remove({ id: policy!.id }), "CONFLICT", /node guard-policy is used by 1 queued or running run: "needs-nodes" \(queued; policy\)/);
    await expectTrpcError(admins.nodes.remove({ id: toolSim!.id }), "CONFLICT", /"needs-nodes" \(queued; tool simulator\)/);
    await expectTrpcError(admins.nodes.remove({ id: userSim!.id }), "CONFLICT", /"needs-nodes" \(queued; user simulator\)/);
    const judged = await expectTrpcError(admins.nodes.remove({ id: judge!.id }), "CONFLICT", /used by 2 queued or running runs: "needs-nodes" \(queued; judge\), "also-judges" \(running; judge\)/);
    expect((judged.cause as { fieldErrors?: { message: string }[] }).fieldErrors?.map((f) => f.message)).toEqual(["needs-nodes: judge", "also-judges: judge"]);
    expect(await prisma.node.count({ where: { name: { startsWith: "guard-" } } })).toBe(5);

    // A node no active run uses goes; once the runs end, so do the others.
    await admins.nodes.remove({ id: idle!.id });
    await caller.runs.cancel({ id: run.id });
    await prisma.run.update({ where: { id: second.id }, data: { status: "succeeded" } });
    for (const n of [policy, judge, userSim, toolSim]) await admins.nodes.remove({ id: n!.id });
    expect(await prisma.node.count({ where: { name: { startsWith: "guard-" } } })).toBe(0);
    await expectTrpcError(admins.nodes.remove({ id: idle!.id }), "NOT_FOUND");
  });

  it("a removal racing a launch that names the node waits for the launch, then refuses", async () => {
    const caller = await callerFor(admin.headers);
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

describe("nodes: URLs, who may change them, and probing", () => {
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

  /** A REST call with a session cookie, through the real handler. */
  const restCall = async (user: TestUser, method: string, path: string, body?: unknown) => {
    const headers = new Headers(user.headers);
    headers.set("content-type", "application/json");
    const res = await handleRestRequest(new Request(`http://localhost/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    return { status: res.status, body: (await res.json()) as { code?: string; message?: string; id?: string; baseUrl?: string } };
  };

  it("lets only admins add, change and remove nodes (tRPC and REST); members use them", async () => {
    const members = await callerFor(alice.headers);
    const denied = await rejection(members.nodes.add({ name: "member-gpu", kind: "openai", baseUrl: "http://127.0.0.1:9911/arbitrary" }));
    expect(denied.code).toBe("FORBIDDEN");
    const rest = await restCall(alice, "POST", "/nodes", { name: "member-gpu", kind: "openai", baseUrl: "http://127.0.0.1:9911/arbitrary" });
    expect(rest).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } });
    expect(await prisma.node.count({ where: { name: "member-gpu" } })).toBe(0);

    const added = await restCall(admin, "POST", "/nodes", { name: "admin-gpu", kind: "openai", baseUrl: "HTTP://127.0.0.1:9/prefix/" });
    expect(added).toMatchObject({ status: 200, body: { baseUrl: "http://127.0.0.1:9/prefix" } });
    const id = added.body.id!;
    expect((await rejection(members.nodes.update({ id, baseUrl: "http://127.0.0.1:9911" }))).code).toBe("FORBIDDEN");
    expect(await restCall(alice, "PATCH", `/nodes/${id}`, { baseUrl: "http://127.0.0.1:9911" })).toMatchObject({ status: 403 });
    expect((await rejection(members.nodes.remove({ id }))).code).toBe("FORBIDDEN");
    expect(await restCall(bob, "DELETE", `/nodes/${id}`)).toMatchObject({ status: 403 });
    expect(await restCall(viewer, "POST", "/nodes", { name: "viewer-gpu", kind: "openai", baseUrl: "http://127.0.0.1:9" })).toMatchObject({ status: 403 });

    // Members use it: they see it, run the doctor on it, and may not change it.
    const listed = (await members.nodes.list()).find((n) => n.id === id)!;
    expect(listed).toMatchObject({ canTest: true, canEdit: false, canRemove: false, addedBy: { email: admin.email } });
    expect((await members.nodes.doctor({ id })).reports[0]!.ok).toBe(false);

    expect(await restCall(admin, "PATCH", `/nodes/${id}`, { baseUrl: "http://127.0.0.1:9/v2" })).toMatchObject({ status: 200, body: { baseUrl: "http://127.0.0.1:9/v2" } });
    expect(await restCall(admin, "DELETE", `/nodes/${id}`)).toMatchObject({ status: 200, body: { id } });
  });

  it("stores base URLs in their normal form and refuses other schemes, queries and fragments, naming the field", async () => {
    const caller = await callerFor(admin.headers);
    const added = await caller.nodes.add({ name: "normal", kind: "openai", baseUrl: "  HTTP://LocalHost:9/a/./b/../v1//  " });
    expect(added.baseUrl).toBe("http://localhost:9/a/v1");
    for (const [baseUrl, message] of [
      ["http://127.0.0.1:9911/arbitrary?x=", /must not have a query/],
      ["http://127.0.0.1:9911/arbitrary?", /must not have a query/],
      ["http://127.0.0.1:9911/#frag", /must not have a fragment/],
      ["ftp://127.0.0.1/", /must be http\(s\)/],
      ["file:///etc/passwd", /must be http\(s\)/],
      ["gpu-1:8000", /must be http\(s\)|must be a URL/],
    ] as const) {
      const err = await rejection(caller.nodes.add({ name: "odd", kind: "openai", baseUrl }));
      expect(err.code, baseUrl).toBe("BAD_REQUEST");
      expect(err.message, baseUrl).toMatch(message);
      expect((err.cause as unknown as { issues: { path: (string | number)[] }[] }).issues[0]!.path.join("."), baseUrl).toBe("baseUrl");
    }
    expect(await prisma.node.count({ where: { name: "odd" } })).toBe(0);
    await caller.nodes.remove({ id: added.id });
  });

  it("never requests a stored URL with a query: the doctor refuses it, naming the node", async () => {
    // A row from before URLs were checked.
    const legacy = await prisma.node.create({ data: { name: "legacy-query", kind: "openai", baseUrl: "http://127.0.0.1:9911/arbitrary?x=" }, select: { id: true } });
    const tested = await (await callerFor(admin.headers)).nodes.doctor({ id: legacy.id });
    expect(tested.reports[0]!.ok).toBe(false);
    const models = tested.reports[0]!.checks.find((c) => c.check === "models")!;
    expect(models.reason).toMatch(/node "legacy-query": its base URL must not have a query .*an admin must edit the node/);
    await prisma.node.delete({ where: { id: legacy.id } });
  });

  it("refuses a URL with a user name or password, naming the field, and stores nothing", async () => {
    const caller = await callerFor(admin.headers);
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

  it("a node a member added before nodes became admin-only: only an admin tests, changes or removes it", async () => {
    const mine = await prisma.node.create({ data: { name: "alice-legacy", kind: "openai", baseUrl: "http://127.0.0.1:9", createdById: alice.id }, select: { id: true } });
    const vetted = await (await callerFor(admin.headers)).nodes.add({ name: "admin-probe", kind: "openai", baseUrl: "http://127.0.0.1:9" });
    const system = await prisma.node.create({ data: { name: "embedded-sys", kind: "embedded", baseUrl: "http://127.0.0.1:9" }, select: { id: true } });
    const alices = await callerFor(alice.headers);

    // Even her own node: a member must not learn which ports answer on the server's network.
    const denied = await rejection(alices.nodes.doctor({ id: mine.id }));
    expect(denied.code).toBe("FORBIDDEN");
    expect(denied.message).toMatch(/members may test only nodes an admin added/);
    expect((await prisma.node.findUniqueOrThrow({ where: { id: mine.id } })).health).toBe("unknown");
    expect((await rejection(alices.nodes.remove({ id: mine.id }))).code).toBe("FORBIDDEN");
    expect((await rejection(alices.nodes.update({ id: mine.id, baseUrl: "http://127.0.0.1:9911" }))).code).toBe("FORBIDDEN");

    expect((await alices.nodes.doctor({ id: vetted.id })).reports[0]!.ok).toBe(false);
    expect((await alices.nodes.doctor({ id: system.id })).reports[0]!.ok).toBe(false);
    expect((await (await callerFor(admin.headers)).nodes.doctor({ id: mine.id })).node.health).toBe("unhealthy");
    expect((await rejection((await callerFor(viewer.headers)).nodes.doctor({ id: vetted.id }))).code).toBe("FORBIDDEN");

    const listed = await alices.nodes.list();
    expect(listed.find((n) => n.id === mine.id)).toMatchObject({ canTest: false, canRemove: false, canEdit: false, addedBy: { email: alice.email } });
    expect(listed.find((n) => n.id === vetted.id)).toMatchObject({ canTest: true, canRemove: false });
    expect(listed.find((n) => n.id === system.id)).toMatchObject({ canTest: true, canRemove: false });
    const bobs = (await (await callerFor(bob.headers)).nodes.list()).find((n) => n.id === mine.id);
    expect(bobs).toMatchObject({ canRemove: false });
    await (await callerFor(admin.headers)).nodes.remove({ id: mine.id });
    expect(await prisma.node.count({ where: { id: mine.id } })).toBe(0);
  });
});
