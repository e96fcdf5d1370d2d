/**
 * A FinMCP-Bench evaluation on the synthetic samples (../shared/data/finmcp-synthetic, in upstream's layout) runs end
 * to end against real Postgres with the REAL embedded node as the policy, its tools answered by the replay of the
 * recorded gold outputs, and fills Table 2 — on the run page (runs.finmcp) and in a report over BFCL, τ² retail and
 * FinMCP evaluations, whose Table 1 shows the paper's layout with the columns not run marked; the exports carry both.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunConfigInput } from "../../contracts/run-config";
import { BFCL_V4_ENTRY_COUNTS } from "../../lib/bfcl/aggregate";
import { dataDir } from "../../lib/tau2/tasks";
import { callerFor, eventually, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { seedRunRows } from "../../test/fixtures/run-rows";
import { startEmbeddedNode } from "../../test/processes";
import { evalExecutor } from "./executors/eval";
import { RunWorker } from "./worker";

const databaseUrl = inject("databaseUrl");
const shared = existsSync(join(dataDir(), "finmcp-synthetic/samples.json"));

describe.skipIf(!shared)("a FinMCP-Bench evaluation on the embedded node", () => {
  let member: TestUser;
  let node: Awaited<ReturnType<typeof startEmbeddedNode>>;
  let worker: RunWorker;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    node = await startEmbeddedNode();
    await prisma.node.create({ data: { name: "embedded", kind: "embedded", baseUrl: node.url } });
    worker = new RunWorker({ prisma, databaseUrl, concurrency: 1, logger: () => {}, selectExecutor: () => (ctx) => evalExecutor(ctx) });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop({ drain: true });
    await node?.kill("SIGKILL");
    const { getBoss } = await import("../../server/lib/queue");
    await (await getBoss()).stop({ graceful: false, wait: false }).catch(() => {});
  });

  it("runs upstream's sample loop, stores the per-sample counts, and fills Table 2 on the run page and in a report with Table 1", async () => {
    const caller = await callerFor(member.headers);
    const config: RunConfigInput = {
      kind: "eval",
      policy: { node: "embedded", model: "tiny-gpt" },
      data: { dataset: "finmcp:samples", instanceIds: ["0", "2", "5"] },
      finmcp: { environment: "replay", folder: "finmcp-synthetic" },
      rollout: { paradigm: "environment", maxAssistantTurns: 3, maxMicroSteps: 8 },
      sampling: { evalAct: { temperature: 0.6, topP: 0.95, maxTokens: 40 }, evalRehearse: { temperature: 0.6, topP: 0.95, maxTokens: 40 } },
    };
    const run = await caller.runs.create({ name: "finmcp-tiny", config });
    const done = await eventually(async () => {
      const r = await caller.runs.get({ id: run.id });
      return r.status === "succeeded" || r.status === "failed" ? r : null;
    }, 240_000, "FinMCP run to finish");
    expect(done.error).toBeNull();
    expect(done.status).toBe("succeeded");

    // The run page: Table 2's row over the scored samples, labelled a replay, with upstream's groups.
    const row = (await caller.runs.finmcp({ runId: run.id }))!;
    expect(row).toMatchObject({ runName: "finmcp-tiny", dataset: "finmcp:samples", replay: true, mode: "replay of the recorded gold outputs (not upstream's live-server protocol)", samples: 3 });
    expect(row.notes[0]).toMatch(/^REPLAY: /);
    // Every sample is scored (N) or counted as dropped or skipped — none is lost.
    expect((row.overall?.N ?? 0) + row.errored + row.skipped).toBe(3);
    // The tiny model rarely writes a readable tool call, so its samples are scored (an unreadable call would make an error record).
    expect(row.overall).not.toBeNull();
    for (const k of ["TR", "TP", "TF1", "microTF1", "exact"] as const) expect(row.overall![k]).toBeGreaterThanOrEqual(0);
    for (const g of ["scenario", "difficulty", "task"] as const) expect(row.groups[g].reduce((n, x) => n + x.figures.N, 0)).toBe(row.overall!.N);
    expect(row.groups.difficulty.map((g) => g.key).every((k) => ["easy", "medium", "hard"].includes(k))).toBe(true);
    expect(row.groups.task.map((g) => g.key).every((k) => ["single_step", "multi_step", "multi_turn"].includes(k))).toBe(true);
    // The stored metric points agree with the row (both are upstream's block over the same samples).
    const points = Object.fromEntries((await prisma.metricPoint.findMany({ where: { runId: run.id, key: { startsWith: "val/finmcp/" } } })).map((p) => [p.key, p.value]));
    expect(points["val/finmcp/replay"]).toBe(1);
    expect(Math.round(points["val/finmcp/macro_F1"]! * 10_000) / 100).toBe(row.overall!.TF1);
    expect(points["val/finmcp/N"]).toBe(row.overall!.N);

    // A report over a BFCL run (no web search, no vector memory), a τ² retail run and the FinMCP run, same policy.
    const policy = { node: "embedded", model: "tiny-gpt" };
    const categories = Object.keys(BFCL_V4_ENTRY_COUNTS).filter((c) => !["web_search_base", "web_search_no_snippet", "memory_vector"].includes(c));
    const bfclRun = await seedRunRows(prisma, {
      name: "bfcl-tiny",
      createdById: member.id,
      config: { kind: "eval", policy, data: { dataset: "bfcl:all" } },
      metrics: Object.fromEntries(categories.flatMap((c) => [[`val/bfcl/${c}/accuracy`, [0.25]], [`val/bfcl/${c}/tasks`, [BFCL_V4_ENTRY_COUNTS[c as keyof typeof BFCL_V4_ENTRY_COUNTS]]]])),
    });
    const tau2Run = await seedRunRows(prisma, {
      name: "tau2-tiny",
      createdById: member.id,
      config: { kind: "eval", policy, data: { dataset: "tau2:retail" }, rollout: { userSimulator: { node: "sim", model: "user-8b" } } },
      metrics: { "val/tau2/retail/avg": [0.3], "val/tau2/retail/tasks": [10], "val/tau2/retail/trials": [10] },
    });
    const { id } = await caller.reports.create({ title: "Tables", runIds: [bfclRun, tau2Run, run.id] });
    const { document } = await caller.reports.get({ id });
    expect(document.finmcp!.rows.map((r) => [r.runName, r.replay])).toEqual([["finmcp-tiny", true]]);
    // The generic result table's column of the FinMCP run says it is a replay too.
    expect(document.table.benchmarks).toContain("finmcp:samples (replay)");
    const t1 = document.table1!;
    expect(t1.rows.map((r) => r.label)).toEqual(["tiny-gpt on embedded"]);
    const cell = (cid: string) => t1.rows[0]!.cells.find((c) => c.id === cid)!;
    expect(cell("bfcl.web")).toMatchObject({ value: null, note: expect.stringContaining("web_search_base") });
    expect(cell("bfcl.memory")).toMatchObject({ value: null, note: expect.stringContaining("memory_vector") });
    expect(cell("bfcl.multiTurn").value).toBe(25);
    expect(cell("bfcl.avg")).toMatchObject({ value: 25, partial: true });
    expect(cell("tau2.retail").value).toBe(30);
    expect(cell("tau2.telecom")).toMatchObject({ value: null, note: "no τ² Telecom evaluation of this policy in the report" });
    expect(cell("tau2.avg")).toMatchObject({ value: 30, partial: true });
    expect(cell("vitabench.avg").value).toBeNull();
    expect(cell("overall")).toMatchObject({ value: 27.5, partial: true });
    expect(t1.rows[0]!.provenance.map((p) => [p.group, p.runs.map((r) => r.name), p.userSimulator])).toEqual([
      ["bfcl", ["bfcl-tiny"], null],
      ["tau2", ["tau2-tiny"], "user-8b on sim"],
    ]);

    // The exports carry what the app shows.
    const exported = async (format: "md" | "csv" | "latex" | "json") => (await caller.reports.export({ id, format })).content;
    const md = await exported("md");
    expect(md).toContain("## Table 1");
    expect(md).toContain("| tiny-gpt on embedded | — | — | 25.00 |");
    expect(md).toContain("25.00† |");
    expect(md).toContain("## FinMCP-Bench (Table 2)");
    expect(md).toContain("| finmcp-tiny (replay) | finmcp:samples |");
    const csv = await exported("csv");
    expect(csv).toContain("provenance_user_simulator");
    expect(csv).toMatch(/finmcp-tiny,finmcp:samples,replay of the recorded gold outputs \(not upstream's live-server protocol\),yes,overall/);
    const tex = await exported("latex");
    expect(tex).toContain("\\multicolumn{7}{c}{BFCL V4}");
    expect(tex).toContain("finmcp-tiny (replay)");
    const json = JSON.parse(await exported("json"));
    expect(json.table1.rows[0].cells).toHaveLength(17);
    expect(json.finmcp.rows[0].replay).toBe(true);
  });
});
