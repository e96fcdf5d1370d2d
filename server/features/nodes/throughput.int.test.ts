/** A node's recent pace, measured from committed steps: what the new-run form's time estimate uses. */
import { beforeAll, describe, expect, it } from "vitest";
import { seedRunRows, trials } from "../../../test/fixtures/run-rows";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";

let member: TestUser;

async function step(runId: string, index: number, kind: "train" | "eval", durationMs: number, generations?: number) {
  const finishedAt = new Date(Date.UTC(2026, 0, 1, 0, index));
  await prisma.step.create({
    data: {
      runId,
      index,
      kind,
      startedAt: new Date(finishedAt.getTime() - durationMs),
      finishedAt,
      durationMs,
      metrics: generations != null ? { "generation/attempted": generations } : {},
    },
  });
}

beforeAll(async () => {
  await resetDatabase();
  member = await signUp("member");
  // gpu-a / model m1: two train steps of 4 rollouts (8 s and 4 s) and one eval step of 2 rollouts (6 s).
  const a = await seedRunRows(prisma, {
    name: "on gpu-a",
    createdById: member.id,
    policyNode: "gpu-a",
    config: { kind: "train", policy: { node: "gpu-a", model: "m1" } },
    trajectories: [...trials("train", 1, "x", "shop", 4, 1), ...trials("train", 2, "y", "shop", 4, 2), ...trials("eval", 2, "z", "shop", 2, 1)],
  });
  await step(a, 1, "train", 8000, 20);
  await step(a, 2, "train", 4000, 12);
  await step(a, 2, "eval", 6000);
  // Another model on the same node, and another node: neither counts for gpu-a / m1.
  const other = await seedRunRows(prisma, {
    name: "m2 on gpu-a",
    createdById: member.id,
    policyNode: "gpu-a",
    config: { kind: "train", policy: { node: "gpu-a", model: "m2" } },
    trajectories: trials("train", 1, "x", "shop", 1, 0),
  });
  await step(other, 1, "train", 100_000);
  const elsewhere = await seedRunRows(prisma, { name: "on embedded", createdById: member.id, trajectories: trials("train", 1, "x", "shop", 1, 0) });
  await step(elsewhere, 1, "train", 50_000);
});

describe("nodes.throughput", () => {
  it("averages step time over rollouts of the node's steps for the model", async () => {
    const caller = await callerFor(member.headers);
    const t = await caller.nodes.throughput({ node: "gpu-a", model: "m1" });
    expect(t).toMatchObject({ node: "gpu-a", model: "m1", steps: 3 });
    expect(t.secondsPerRollout).toBeCloseTo(18 / 10, 6);
    // Generations are known for the train steps only: 32 over their 8 rollouts.
    expect(t.generationsPerRollout).toBeCloseTo(4, 6);
    expect(t.lastStepAt).toEqual(new Date(Date.UTC(2026, 0, 1, 0, 2)));
  });

  it("falls back to the node's other models, and says so", async () => {
    const caller = await callerFor(member.headers);
    const t = await caller.nodes.throughput({ node: "gpu-a", model: "never-ran" });
    expect(t).toMatchObject({ model: null, steps: 4 });
    expect(t.secondsPerRollout).toBeCloseTo(118 / 11, 6);
  });

  it("has no estimate for a node without history", async () => {
    const caller = await callerFor(member.headers);
    expect(await caller.nodes.throughput({ node: "fresh" })).toEqual({
      node: "fresh",
      model: null,
      steps: 0,
      secondsPerRollout: null,
      generationsPerRollout: null,
      lastStepAt: null,
    });
  });
});
