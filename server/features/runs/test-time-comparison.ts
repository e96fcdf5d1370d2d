/**
 * Launch a test-time comparison in one go: for every benchmark, one evaluation run per arm (no rehearsal,
 * parallel N, sequential N — lib/test-time.ts armConfig), all on the same tasks, plus a report holding
 * them, whose Table-3 section finds the arms from the runs' configs. Everything is written in ONE
 * transaction (runs, their jobs, the report): a comparison never exists in part.
 */
import crypto from "node:crypto";
import type { RunConfig } from "../../../contracts/run-config";
import type { TestTimeArm } from "../../../contracts/test-time";
import { prisma } from "../../../lib/db";
import { armConfig, armLabel, benchmarkLabel, type ComparisonBenchmark } from "../../../lib/test-time";
import { DomainError } from "../../lib/errors";
import { assertMcpDatasetUsable } from "../mcp-servers/service";
import { assertLaunchable, insertRun, validRunConfig } from "./service";

export interface LaunchComparisonInput {
  name: string;
  /** The base evaluation config: policy, rollout limits, trials, and the testTime section (N, sampling, bounds). */
  config?: unknown;
  benchmarks: ComparisonBenchmark[];
  arms: TestTimeArm[];
}

/** The report's opening notes: what was compared, with which settings. */
function comparisonNotes(base: RunConfig, input: LaunchComparisonInput): string {
  const s = base.testTime.sampling;
  const fmt = (x: { temperature: number; topP: number }) => `temperature ${x.temperature}, top-p ${x.topP}`;
  return [
    `Test-time comparison of ${base.policy.model} on node "${base.policy.node}": ${input.arms.map((a) => armLabel(a, base.testTime.attempts)).join(", ")}, on ${input.benchmarks.map((b) => benchmarkLabel(b.dataset)).join(", ")}.`,
    "",
    `Every arm evaluates the same tasks with ${base.trialsPerTask} trial(s) each. Sampling: act and rehearse ${fmt(s.act)}; assessment ${fmt(s.assessment)}; memory ${fmt(s.memory)}. Private attempts contact nothing external; only the committed execution meets the real environment, user and judge.`,
  ].join("\n");
}

export async function launchTestTimeComparison(userId: string, input: LaunchComparisonInput, role = "member") {
  if (input.config !== undefined && (typeof input.config !== "object" || input.config === null || Array.isArray(input.config))) {
    throw new DomainError("BAD_REQUEST", "config must be a run config object", [{ path: "config", message: "must be an object" }]);
  }
  const base = validRunConfig({ ...((input.config ?? {}) as Record<string, unknown>), kind: "eval" });
  const seen = new Set<string>();
  input.benchmarks.forEach((b, i) => {
    const key = `${b.dataset}|${b.split ?? base.data.split}`;
    if (seen.has(key)) throw new DomainError("BAD_REQUEST", `benchmark ${b.dataset} (${b.split ?? base.data.split} split) is listed twice`, [{ path: `benchmarks.${i}.dataset`, message: "listed twice" }]);
    seen.add(key);
  });
  const plan = input.benchmarks.flatMap((benchmark, i) =>
    input.arms.map((arm) => ({ benchmark, arm, config: validRunConfig(armConfig(base, arm, benchmark), `benchmarks.${i}`) })),
  );
  for (const b of input.benchmarks) await assertMcpDatasetUsable(b.dataset);
  // Every arm runs on the base config's nodes: the launch gate (the node doctor) once, before anything is written.
  await assertLaunchable(base, { id: userId, role });
  const tag = `ttc-${crypto.randomBytes(4).toString("hex")}`;
  return prisma.$transaction(async (tx) => {
    const runs: { id: string; name: string; dataset: string; arm: TestTimeArm }[] = [];
    for (const p of plan) {
      const name = `${input.name} · ${benchmarkLabel(p.benchmark.dataset)} · ${armLabel(p.arm, p.arm === "none" ? null : base.testTime.attempts)}`;
      const run = await insertRun(tx, userId, { name: name.slice(0, 200), tags: ["test-time", tag] }, p.config);
      runs.push({ id: run.id, name: run.name, dataset: p.benchmark.dataset, arm: p.arm });
    }
    const report = await tx.report.create({
      data: { title: input.name, body: comparisonNotes(base, input), runIds: runs.map((r) => r.id), createdById: userId },
      select: { id: true },
    });
    return { reportId: report.id, tag, runs };
  });
}
