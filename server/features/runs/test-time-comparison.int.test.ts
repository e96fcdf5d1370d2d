/** Launching a test-time comparison: every arm × benchmark as a queued evaluation run and their report, all or nothing. */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, expectTrpcError, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { parseRunConfig, testTimePreset } from "../../../contracts/run-config";
import { armOf } from "../../../lib/test-time";
import { retailDataFiles } from "../../../lib/tau2/tasks";
import { registerCheckedNode } from "../../../test/fixtures/doctor-report";

const tau2DataHere = existsSync(retailDataFiles({ required: [] }).userGuidelines);

describe("runs.launchTestTimeComparison against real Postgres", () => {
  let member: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp();
    viewer = await signUp("viewer");
    await registerCheckedNode(prisma); // the embedded node the configs name
    // A node whose doctor found the embedded model's 1,024-token context.
    await registerCheckedNode(prisma, "small-context", ["tiny-gpt"], { kind: "embedded", facts: { contextLength: 1024, renderer: "tiny-gpt" } });
  });
  afterAll(async () => {
    const { getBoss } = await import("../../lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("queues one evaluation run per arm and benchmark on the same tasks, with a report holding them", async () => {
    const caller = await callerFor(member.headers);
    const config = { ...testTimePreset, rollout: { ...testTimePreset.rollout, userSimulator: { node: "embedded", model: "tiny-gpt" } } };
    const out = await caller.runs.launchTestTimeComparison({
      name: "tts",
      config,
      benchmarks: [{ dataset: "builtin:shop" }, { dataset: "tau2:retail", split: "train", instanceIds: ["0", "1"] }],
    });
    expect(out.runs).toHaveLength(6);
    const runs = await prisma.run.findMany({ where: { id: { in: out.runs.map((r) => r.id) } }, select: { id: true, name: true, kind: true, status: true, tags: true, config: true } });
    const jobs = await prisma.$queryRawUnsafe<{ n: number }[]>(`select count(*)::int as n from pgboss.job where name = 'envace-run' and data->>'runId' = any($1)`, runs.map((r) => r.id));
    expect(jobs[0]!.n).toBe(6);
    for (const r of runs) {
      expect([r.kind, r.status]).toEqual(["eval", "queued"]);
      expect(r.tags).toEqual(["test-time", out.tag]);
    }
    const parsed = out.runs.map((r) => {
      const p = parseRunConfig(runs.find((x) => x.id === r.id)!.config);
      if (!p.ok) throw new Error("stored config does not parse");
      return { ...r, config: p.config };
    });
    expect(parsed.map((p) => `${p.dataset}:${armOf(p.config).arm}`)).toEqual([
      "builtin:shop:none",
      "builtin:shop:parallel",
      "builtin:shop:sequential",
      "tau2:retail:none",
      "tau2:retail:parallel",
      "tau2:retail:sequential",
    ]);
    const tau2 = parsed.filter((p) => p.dataset === "tau2:retail");
    expect(new Set(tau2.map((p) => JSON.stringify(p.config.data))).size).toBe(1);
    expect(tau2[0]!.config.data.instanceIds).toEqual(["0", "1"]);
    expect(parsed.find((p) => p.name === "tts · Shop (built-in) · Parallel rehearsal (N=4)")).toBeDefined();

    const { report, document } = await caller.reports.get({ id: out.reportId });
    expect(report.runIds).toEqual(out.runs.map((r) => r.id));
    expect(report.body).toMatch(/^Test-time comparison of tiny-gpt on node "embedded"/);
    // Before any result the table is laid out, its cells waiting for their runs.
    expect(document.testTime!.benchmarks.map((b) => b.label)).toEqual(["τ²-Bench retail", "Shop (built-in)"]);
    expect(document.testTime!.rows.map((r) => r.label)).toEqual(["No test-time scaling", "Parallel rehearsal (N=4)", "Sequential rehearsal (N=4)"]);
    expect(document.testTime!.rows[0]!.cells["tau2:retail"]).toMatchObject({ value: null, status: "queued" });
  });

  it("rejects bad input naming the field, and writes nothing", async () => {
    const caller = await callerFor(member.headers);
    const runs = await prisma.run.count();
    const reports = await prisma.report.count();
    let err = await expectTrpcError(
      caller.runs.launchTestTimeComparison({ name: "bad", config: { ...testTimePreset, testTime: { attempts: 0 } }, benchmarks: [{ dataset: "builtin:shop" }] }),
      "BAD_REQUEST",
    );
    expect((err.cause as unknown as { fieldErrors: { path: string }[] }).fieldErrors.map((f) => f.path)).toContain("config.testTime.attempts");
    // tau2 needs a user simulator: the error names the benchmark.
    err = await expectTrpcError(
      caller.runs.launchTestTimeComparison({ name: "bad", config: testTimePreset, benchmarks: [{ dataset: "builtin:shop" }, { dataset: "tau2:retail" }] }),
      "BAD_REQUEST",
    );
    expect((err.cause as unknown as { fieldErrors: { path: string }[] }).fieldErrors[0]!.path).toBe("benchmarks.1.rollout.userSimulator");
    await expectTrpcError(
      caller.runs.launchTestTimeComparison({ name: "dup", config: testTimePreset, benchmarks: [{ dataset: "builtin:shop" }, { dataset: "builtin:shop", split: "test" }] }),
      "BAD_REQUEST",
      /listed twice/,
    );
    await expectTrpcError(caller.runs.launchTestTimeComparison({ name: "none", config: testTimePreset, benchmarks: [] }), "BAD_REQUEST");
    // The launch check per benchmark: a node every benchmark names is refused once, under config; what only
    // one benchmark cannot do, under that benchmark.
    const withUser = (node: string) => ({ ...testTimePreset, rollout: { ...testTimePreset.rollout, userSimulator: { node, model: "tiny-gpt" } } });
    err = await expectTrpcError(
      caller.runs.launchTestTimeComparison({ name: "ghost", config: withUser("ghost"), benchmarks: [{ dataset: "builtin:shop" }, { dataset: "tau2:retail", split: "train", instanceIds: ["0"] }] }),
      "BAD_REQUEST",
      /^cannot launch: rollout\.userSimulator\.node: node "ghost" \(user simulator\) is not registered/,
    );
    expect((err.cause as unknown as { fieldErrors: { path: string }[] }).fieldErrors.map((f) => f.path)).toEqual(["config.rollout.userSimulator.node"]);
    err = await expectTrpcError(
      caller.runs.launchTestTimeComparison({ name: "unknown", config: { ...testTimePreset, testTime: { ...testTimePreset.testTime, attemps: 2 } }, benchmarks: [{ dataset: "builtin:shop" }] }),
      "BAD_REQUEST",
    );
    expect((err.cause as unknown as { fieldErrors: { path: string; message: string }[] }).fieldErrors).toEqual([{ path: "config.testTime.attemps", message: "unknown setting (did you mean testTime.attempts?)" }]);
    if (tau2DataHere) {
      err = await expectTrpcError(
        caller.runs.launchTestTimeComparison({ name: "small", config: withUser("small-context"), benchmarks: [{ dataset: "builtin:shop" }, { dataset: "tau2:retail", split: "train", instanceIds: ["0"] }] }),
        "BAD_REQUEST",
      );
      expect((err.cause as unknown as { fieldErrors: { path: string; message: string }[] }).fieldErrors).toEqual([
        { path: "benchmarks.1.rollout.userSimulator.node", message: expect.stringMatching(/^tau2:retail user-simulator prompts need ≥ 2,073 tokens; node "small-context" \/ tiny-gpt has 1,024/) },
      ]);
    }
    expect(await prisma.run.count()).toBe(runs);
    expect(await prisma.report.count()).toBe(reports);
    // Viewers launch nothing.
    await expectTrpcError((await callerFor(viewer.headers)).runs.launchTestTimeComparison({ name: "v", config: testTimePreset, benchmarks: [{ dataset: "builtin:shop" }] }), "FORBIDDEN");
  });
});
