/** Nodes through the real tRPC router against real Postgres: write-only keys, the probe, roles, the deletion guard. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";

describe("nodes API against real Postgres", () => {
  let member: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    await signUp();
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
    const tested = await caller.nodes.test({ id: node.id });
    expect(tested.probe.healthy).toBe(false);
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
    await expectTrpcError(v.nodes.test({ id: node!.id }), "FORBIDDEN");
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
});
