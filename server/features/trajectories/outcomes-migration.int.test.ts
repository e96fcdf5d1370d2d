/**
 * The trajectory_outcomes migration decides stored rows again by the benchmark's own definitions
 * (lib/outcomes.ts): rows written with the old outcome (success = reward above 0, error = any reason
 * containing error/failed/exceeded/invalid) are inserted as they were, the migration's backfill
 * statements run on them as `prisma migrate deploy` runs them (split at every semicolon), and each row
 * comes out with the outcome the worker would store today; the old won-based avg@k/pass@k points keep
 * their meaning under won_ names and are computed again by success.
 */
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma, resetDatabase, signUp } from "../../../test/helpers";

const migration = fs.readFileSync(path.resolve(import.meta.dirname, "../../../prisma/migrations/20261202100000_trajectory_outcomes/migration.sql"), "utf8");

/** The data statements of the migration (its DDL already ran when the test database was migrated). */
const backfill = migration
  .split(";")
  .map((s) => s.replace(/^(\s*--[^\n]*\n)+/g, "").trim())
  .filter((s) => s && !/^(ALTER|CREATE)\b/i.test(s));

type Legacy = {
  key: string;
  phase?: string;
  step?: number;
  group?: string;
  reward: number;
  outcome: string;
  reason: string;
  summary?: object;
  verdicts?: { item: string; passed: boolean; userTurn?: number }[];
  envTurn?: string;
};

describe("the trajectory_outcomes migration", () => {
  let runId: string;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    await resetDatabase();
    const user = await signUp();
    const run = await prisma.run.create({
      data: { name: "legacy", kind: "eval", status: "succeeded", config: {}, configVersion: 1, paradigm: "environment", policyNode: "embedded", tags: [], totalSteps: 1, createdById: user.id },
      select: { id: true },
    });
    runId = run.id;
    const tau2 = (detail: object) => ({ dataSource: "tau2:retail", judgements: [{ reward: 0, detail: { taskId: "0", ...detail } }] });
    const rows: Legacy[] = [
      { key: "tau2-solved", reward: 1, outcome: "success", reason: "user_stop", summary: tau2({}) },
      { key: "tau2-partial", reward: 0.6, outcome: "success", reason: "user_stop", summary: tau2({}) },
      { key: "tau2-user-error", reward: 0, outcome: "error", reason: "user_error", summary: tau2({ termination: { reason: "user_error", code: "USER_ERROR", detail: "prompt has 2073 tokens; the context length is 1024" } }) },
      { key: "partial-checklist", reward: 0.25, outcome: "success", reason: "judge_required_failed", verdicts: [{ item: "a", passed: true }, { item: "b", passed: false }] },
      { key: "complete-checklist", reward: 1, outcome: "success", reason: "checklist_complete", verdicts: [{ item: "a", passed: false }, { item: "a", passed: true }, { item: "b", passed: true }] },
      { key: "complete-one-missed", reward: 0.5, outcome: "success", reason: "checklist_complete", verdicts: [{ item: "a", passed: true }, { item: "b", passed: false }] },
      { key: "crashed", reward: 0, outcome: "error", reason: "environment_error:CRASHED", envTurn: "the server exited with code 3" },
      { key: "bfcl-unscored", reward: 0, outcome: "failure", reason: "answered", summary: { judgements: [{ reward: 0, detail: { bfcl: { scored: false, notScoredReason: "the environment failed (START_FAILED)" } } }] } },
      { key: "parse-error", reward: 0, outcome: "error", reason: "act_parse_error:JSON_DECODE_ERROR" },
      { key: "private", phase: "private", reward: 0, outcome: "private", reason: "checklist_complete" },
    ];
    for (const [i, r] of rows.entries()) {
      const id = crypto.randomUUID();
      ids.set(r.key, id);
      await prisma.trajectory.create({
        data: { id, runId, step: r.step ?? 1, phase: r.phase ?? "eval", instanceId: r.key, groupId: r.group ?? `g${i}`, rolloutIndex: 0, paradigm: "environment", reward: r.reward, outcome: r.outcome, terminationReason: r.reason, summary: r.summary ?? {} },
      });
      for (const v of r.verdicts ?? []) {
        await prisma.checklistVerdict.create({ data: { trajectoryId: id, userTurn: v.userTurn ?? 0, itemId: v.item, question: v.item, weight: 0.5, passed: v.passed, callFailed: false, analysis: { checklist: 0 } } });
      }
      if (r.envTurn) await prisma.turn.create({ data: { runId, trajectoryId: id, index: 0, role: "environment", text: r.envTurn, errorCode: "CRASHED" } });
    }
    // The evaluation's points as the worker wrote them before: avg@1 and pass@1 counted won (E > 0).
    await prisma.metricPoint.createMany({
      data: [
        { runId, key: "val/avg@1", step: 1, value: 0.75 },
        { runId, key: "val/pass@1", step: 1, value: 0.75 },
        { runId, key: "reward/mean", step: 1, value: 0.3 },
      ],
    });
    await prisma.step.create({ data: { runId, index: 1, kind: "eval", startedAt: new Date(), finishedAt: new Date(), durationMs: 1, metrics: { "val/avg@1": 0.75, "val/pass@1": 0.75, "val/test_score": 0.3 } } });

    for (const statement of backfill) await prisma.$executeRawUnsafe(statement);
  });

  const row = (key: string) => prisma.trajectory.findUniqueOrThrow({ where: { id: ids.get(key)! }, select: { outcome: true, errorKind: true, errorCause: true } });

  it("decides every committed row by the benchmark's own definition", async () => {
    expect(await row("tau2-solved")).toEqual({ outcome: "success", errorKind: null, errorCause: null });
    expect(await row("tau2-partial")).toEqual({ outcome: "failure", errorKind: null, errorCause: null });
    expect(await row("partial-checklist")).toEqual({ outcome: "failure", errorKind: null, errorCause: null });
    expect(await row("complete-checklist")).toEqual({ outcome: "success", errorKind: null, errorCause: null });
    expect(await row("complete-one-missed")).toEqual({ outcome: "failure", errorKind: null, errorCause: null });
    expect(await row("parse-error")).toEqual({ outcome: "failure", errorKind: null, errorCause: null });
    expect((await row("private")).outcome).toBe("private");
  });

  it("makes infrastructure failures errors with the cause it can still find", async () => {
    expect(await row("tau2-user-error")).toEqual({ outcome: "error", errorKind: "user_simulator", errorCause: "user simulator failed: prompt has 2073 tokens; the context length is 1024" });
    expect(await row("crashed")).toEqual({ outcome: "error", errorKind: "environment", errorCause: "environment failed: the server exited with code 3" });
    expect(await row("bfcl-unscored")).toEqual({ outcome: "error", errorKind: "scoring", errorCause: "could not be scored: the environment failed (START_FAILED)" });
  });

  it("keeps the won-based avg@k and pass@k under won_ names and computes them again by success", async () => {
    const points = Object.fromEntries((await prisma.metricPoint.findMany({ where: { runId }, select: { key: true, value: true } })).map((p) => [p.key, p.value]));
    // Of the 9 evaluation rows (the private attempt is phase "private"), 3 errored: 6 ran, 2 of them succeeded.
    const ran = await prisma.trajectory.count({ where: { runId, phase: "eval", outcome: { not: "error" } } });
    const successes = await prisma.trajectory.count({ where: { runId, phase: "eval", outcome: "success" } });
    expect([ran, successes]).toEqual([6, 2]);
    expect(points).toEqual({ "val/won_avg@1": 0.75, "val/won_pass@1": 0.75, "val/avg@1": 2 / 6, "val/pass@1": 2 / 6, "reward/mean": 0.3 });
    const step = await prisma.step.findFirstOrThrow({ where: { runId }, select: { metrics: true } });
    expect(step.metrics).toEqual({ "val/won_avg@1": 0.75, "val/won_pass@1": 0.75, "val/avg@1": 2 / 6, "val/pass@1": 2 / 6, "val/test_score": 0.3 });
  });
});
