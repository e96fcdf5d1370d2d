import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRunRows, trials } from "../../../test/fixtures/run-rows";

describe("compare API against real Postgres", () => {
  let member: TestUser;
  let a: string;
  let b: string;
  let trainOnly: string;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    a = await seedRunRows(prisma, {
      name: "run A",
      createdById: member.id,
      config: { optim: { lr: 1e-6, clip: { low: 0.2 } }, rollout: { paradigm: "rehearse", k: 4 } },
      trajectories: [
        // An older eval that solved i3: only the LATEST eval counts.
        ...trials("eval", 10, "i3", "shop", 2, 2),
        ...trials("eval", 20, "i1", "shop", 4, 1),
        ...trials("eval", 20, "i2", "shop", 4, 0),
        ...trials("eval", 20, "i3", "shop", 4, 0),
        // Training trajectories at a later step do not count when an eval exists.
        ...trials("train", 25, "i2", "shop", 4, 4),
      ],
    });
    b = await seedRunRows(prisma, {
      name: "run B",
      createdById: member.id,
      config: { optim: { lr: 2e-6, clip: { low: 0.2 } }, rollout: { paradigm: "rehearse", k: 4 } },
      trajectories: [...trials("eval", 30, "i1", "shop", 4, 0), ...trials("eval", 30, "i2", "shop", 4, 3), ...trials("eval", 30, "i3", "shop", 4, 0)],
    });
    // No eval: the last train step counts.
    trainOnly = await seedRunRows(prisma, {
      name: "train only",
      createdById: member.id,
      config: { optim: { lr: 1e-6, clip: { low: 0.2 } }, rollout: { paradigm: "environment", k: 4 } },
      trajectories: [...trials("train", 1, "i1", "shop", 4, 4), ...trials("train", 2, "i1", "shop", 4, 0), ...trials("train", 2, "i4", "tau2", 4, 1)],
    });
  });

  it("pivots per-instance outcomes from each run's latest eval, disagreements first", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.compare.runs({ runIds: [a, b] });
    expect(res.runs.map((r) => [r.name, r.evaluated])).toEqual([
      ["run A", { runId: a, phase: "eval", step: 20 }],
      ["run B", { runId: b, phase: "eval", step: 30 }],
    ]);
    expect(res.outcomes.map((r) => [r.instanceId, r.differs, r.cells.map((c) => c && `${c.successes}/${c.n}`)])).toEqual([
      ["i1", true, ["1/4", "0/4"]],
      ["i2", true, ["0/4", "3/4"]],
      ["i3", false, ["0/4", "0/4"]],
    ]);
    expect(res.solvedCounts).toEqual([
      { solved: 1, evaluated: 3, uniquelySolved: 1 },
      { solved: 1, evaluated: 3, uniquelySolved: 1 },
    ]);
  });

  it("falls back to the last training step for a run without evaluations", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.compare.runs({ runIds: [trainOnly, a] });
    expect(res.runs[0]!.evaluated).toEqual({ runId: trainOnly, phase: "train", step: 2 });
    const byId = Object.fromEntries(res.outcomes.map((r) => [r.instanceId, r.cells.map((c) => (c ? c.solved : null))]));
    expect(byId).toEqual({ i1: [false, true], i2: [null, false], i3: [null, false], i4: [true, null] });
    expect(res.outcomes.find((r) => r.instanceId === "i4")!.dataSource).toBe("tau2");
  });

  it("shows only the config paths that differ", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.compare.runs({ runIds: [a, b, trainOnly] });
    expect(res.configDiff).toEqual([
      { path: "optim.lr", values: [1e-6, 2e-6, 1e-6] },
      { path: "rollout.paradigm", values: ["rehearse", "rehearse", "environment"] },
    ]);
    expect(JSON.stringify(res.runs)).not.toContain('"config"');
  });

  it("names unknown runs and refuses anonymous callers", async () => {
    const caller = await callerFor(member.headers);
    const missing = "00000000-0000-4000-8000-000000000000";
    await expect(caller.compare.runs({ runIds: [a, missing] })).rejects.toThrow(missing);
    const err = await (await callerFor()).compare.runs({ runIds: [a] }).catch((e) => e);
    expect((err as TRPCError).code).toBe("UNAUTHORIZED");
  });
});
