import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { seedRun, type SeededRun } from "../../../test/seed";
import { rollupFidelity } from "../../../worker/runner/fidelity-rollup";

type Caller = Awaited<ReturnType<typeof callerFor>>;

/** Oracle: the same aggregates computed in TypeScript from every compared turn of the run. */
async function oracle(runId: string) {
  const turns = await prisma.turn.findMany({
    where: { trajectory: { runId }, fidelity: { not: undefined }, role: { in: ["rehearse", "environment", "simulator"] } },
    select: { toolCalls: true, fidelity: true },
  });
  const byTool = new Map<string, { n: number; score: number; exact: number; both: number }>();
  for (const t of turns) {
    if (!t.fidelity) continue;
    const f = t.fidelity as { score: number; exact: boolean; outcome: string };
    const tool = (t.toolCalls as { name: string }).name;
    const agg = byTool.get(tool) ?? { n: 0, score: 0, exact: 0, both: 0 };
    agg.n++;
    agg.score += f.score;
    agg.exact += f.exact ? 1 : 0;
    agg.both += f.outcome === "both_errors" ? 1 : 0;
    byTool.set(tool, agg);
  }
  return byTool;
}

async function rejection(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (e) {
    return e as TRPCError;
  }
  throw new Error("expected a rejection");
}

describe("runs.worldModel against real Postgres", () => {
  let member: TestUser;
  let caller: Caller;
  let shop: SeededRun;
  let tau2: SeededRun;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    caller = await callerFor(member.headers);
    shop = await seedRun(prisma, { userId: member.id, domain: "shop", trajectories: 96, steps: 3, turnsPerTrajectory: 9, evalEvery: 3, metricSeries: 0 });
    tau2 = await seedRun(prisma, { userId: member.id, domain: "tau2", paradigm: "environment", fidelityProbe: true, trajectories: 64, steps: 2, turnsPerTrajectory: 9, metricSeries: 0 });
  });

  it("shop run: fidelity per tool equals the per-turn oracle, worst tool first, exact-match rate beside the score", async () => {
    const wm = await caller.runs.worldModel({ runId: shop.runId });
    const expected = await oracle(shop.runId);
    expect(wm.tools.map((t) => t.tool).sort()).toEqual([...expected.keys()].sort());
    for (const t of wm.tools) {
      const o = expected.get(t.tool)!;
      expect(t.comparisons).toBe(o.n);
      expect(t.meanScore).toBeCloseTo(o.score / o.n, 9);
      expect(t.exactRate).toBeCloseTo(o.exact / o.n, 9);
      expect(t.bothErrorRate).toBeCloseTo(o.both / o.n, 9);
    }
    const scores = wm.tools.map((t) => t.meanScore);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(wm.overall!.comparisons).toBe([...expected.values()].reduce((s, o) => s + o.n, 0));
    // remove_from_cart: the same error on both sides is agreement (every comparison but the seeded broken rehearsals).
    const remove = wm.tools.find((t) => t.tool === "remove_from_cart")!;
    expect(remove.bothErrorRate + remove.invalidRate).toBeCloseTo(1, 9);
    expect(remove.errorAgreementRate).toBeCloseTo(remove.bothErrorRate, 9);
  });

  it("shop run: the most frequent divergences with field, rehearsed and real values and links to real turns", async () => {
    const wm = await caller.runs.worldModel({ runId: shop.runId, limit: 10 });
    const price = wm.divergences.find((d) => d.tool === "get_item" && d.path === "$.price");
    expect(price).toMatchObject({ rehearsed: "6", real: "8" });
    expect(wm.divergences.find((d) => d.tool === "add_to_cart" && d.path === "$")).toMatchObject({ real: "error OUT_OF_STOCK" });
    expect(wm.divergences.find((d) => d.tool === "checkout")).toMatchObject({ path: "$.total", rehearsed: "8", real: "12" });
    const counts = wm.divergences.map((d) => d.count);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
    expect(wm.divergenceKinds).toBeGreaterThanOrEqual(wm.divergences.length);
    for (const d of wm.divergences) {
      expect(d.examples.length).toBeGreaterThan(0);
      expect(d.examples.length).toBeLessThanOrEqual(3);
      for (const e of d.examples) {
        const turn = await prisma.turn.findUnique({ where: { runId_trajectoryId_index: { runId: shop.runId, trajectoryId: e.trajectoryId, index: e.turnIndex } }, select: { toolCalls: true, fidelity: true } });
        expect((turn!.toolCalls as { name: string }).name).toBe(d.tool);
        expect((turn!.fidelity as { divergences: { path: string }[] }).divergences.map((x) => x.path)).toContain(d.path);
      }
    }
    const onlyCheckout = await caller.runs.worldModel({ runId: shop.runId, tool: "checkout" });
    expect(onlyCheckout.divergences.every((d) => d.tool === "checkout")).toBe(true);
    expect(onlyCheckout.tools).toHaveLength(wm.tools.length);
  });

  it("per step and per phase", async () => {
    const all = await caller.runs.worldModel({ runId: shop.runId });
    expect(all.steps.map((s) => [s.step, s.phase])).toEqual([
      [1, "train"],
      [2, "train"],
      [3, "eval"],
    ]);
    const train = await caller.runs.worldModel({ runId: shop.runId, phase: "train" });
    expect(train.steps.map((s) => s.step)).toEqual([1, 2]);
    expect(train.overall!.comparisons).toBe(all.steps.filter((s) => s.phase === "train").reduce((n, s) => n + s.comparisons, 0));
  });

  it("tau2 run: bare-text results score 1 against a wrapped rehearsal, Error: texts agree with rehearsed errors", async () => {
    const wm = await caller.runs.worldModel({ runId: tau2.runId, limit: 50 });
    // Seeded broken rehearsals (invalid, score 0) aside, every comparison of these tools agrees.
    const findUser = wm.tools.find((t) => t.tool === "find_user_id_by_name_zip")!;
    expect(findUser.meanScore).toBeCloseTo(1 - findUser.invalidRate, 9);
    expect(findUser.exactRate).toBe(0);
    const cancel = wm.tools.find((t) => t.tool === "return_delivered_order_items")!;
    expect(cancel.meanScore).toBeCloseTo(1 - cancel.invalidRate, 9);
    expect(cancel.bothErrorRate).toBeCloseTo(1 - cancel.invalidRate, 9);
    expect(wm.divergences).toContainEqual(expect.objectContaining({ tool: "get_order_details", path: "$", real: "error Error: Order not found" }));
  });

  it("validates input, names missing runs and needs a signed-in user", async () => {
    expect((await rejection(caller.runs.worldModel({ runId: "not-a-uuid" }))).code).toBe("BAD_REQUEST");
    expect((await rejection(caller.runs.worldModel({ runId: shop.runId, limit: 0 }))).message).toContain("limit must be at least 1");
    const missing = await rejection(caller.runs.worldModel({ runId: "00000000-0000-4000-8000-000000000000" }));
    expect(missing.code).toBe("NOT_FOUND");
    const anonymous = await callerFor();
    expect((await rejection(anonymous.runs.worldModel({ runId: shop.runId }))).code).toBe("UNAUTHORIZED");
    // A run without shadow execution has nothing to compare.
    const none = await seedRun(prisma, { userId: member.id, trajectories: 8, steps: 1, turnsPerTrajectory: 3, shadowExecution: false, metricSeries: 0 });
    expect(await caller.runs.worldModel({ runId: none.runId })).toEqual({ overall: null, tools: [], steps: [], divergences: [], divergenceKinds: 0 });
  });

  it("reads per-step rollups: a 100,000-turn run answers from steps × tools rows", async () => {
    const big = await seedRun(prisma, { userId: member.id, domain: "shop", trajectories: 10_000, steps: 50, turnsPerTrajectory: 10, metricSeries: 0 });
    expect(big.turns).toBe(100_000);
    await prisma.$executeRawUnsafe("analyze");
    // What a commit pays: one step's rollup (200 trajectories, 2,000 turns here).
    const r0 = performance.now();
    await rollupFidelity(prisma, big.runId, "train", 25);
    const rollupMs = performance.now() - r0;
    const times: number[] = [];
    let wm: Awaited<ReturnType<Caller["runs"]["worldModel"]>> | undefined;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      wm = await caller.runs.worldModel({ runId: big.runId });
      times.push(performance.now() - t0);
    }
    const compared = await prisma.turn.count({ where: { trajectory: { runId: big.runId }, role: "rehearse", NOT: { fidelity: { equals: null as never } } } });
    expect(wm!.overall!.comparisons).toBe(compared);
    expect(wm!.steps).toHaveLength(50);
    console.log(`[world-model] 100,000 turns (${compared} compared): view ${times.map((t) => t.toFixed(0)).join(" / ")} ms; one step's rollup ${rollupMs.toFixed(0)} ms`);
  });
});
