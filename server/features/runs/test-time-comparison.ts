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
import { describeProblems, type LaunchProblem } from "../../../lib/launch-check";
import { insertRun, launchRefusals, validLaunchConfig, validRunConfig, withPinnedCheckpoint } from "./service";

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

/**
 * The launch check (lib/launch-check) on each benchmark's config, before anything is written. The arms of a
 * benchmark differ only in test-time settings, which it does not look at, so one arm per benchmark is
 * checked. A refusal every benchmark shares (a node of the base config) is named once under `config.`;
 * the others under the benchmark (`benchmarks.1.data.instanceIds`, `benchmarks.1.rollout.userSimulator.node`).
 */
async function assertComparisonLaunchable(configs: RunConfig[], actor: { id: string; role: string }) {
  const perBenchmark: LaunchProblem[][] = [];
  for (const config of configs) perBenchmark.push(await launchRefusals(config, actor));
  const key = (p: LaunchProblem) => JSON.stringify([p.path, p.message]);
  const shared = new Set(perBenchmark[0]?.map(key).filter((k) => perBenchmark.every((list) => list.some((p) => key(p) === k))));
  const fieldErrors = [
    ...(perBenchmark[0] ?? []).filter((p) => shared.has(key(p))).map((p) => ({ path: `config.${p.path}`, message: p.message })),
    ...perBenchmark.flatMap((list, i) => list.filter((p) => !shared.has(key(p))).map((p) => ({ path: `benchmarks.${i}.${p.path}`, message: p.message }))),
  ];
  if (fieldErrors.length === 0) return;
  throw new DomainError("BAD_REQUEST", `cannot launch: ${describeProblems(fieldErrors.map((f) => ({ ...f, path: f.path.replace(/^config\./, "") })))}`, fieldErrors);
}

export async function launchTestTimeComparison(userId: string, input: LaunchComparisonInput, role = "member") {
  if (input.config !== undefined && (typeof input.config !== "object" || input.config === null || Array.isArray(input.config))) {
    throw new DomainError("BAD_REQUEST", "config must be a run config object", [{ path: "config", message: "must be an object" }]);
  }
  const launched = validLaunchConfig({ ...((input.config ?? {}) as Record<string, unknown>), kind: "eval" });
  // A checkpoint policy is resolved once, for every arm: all of them evaluate the same step.
  const pinned = await withPinnedCheckpoint(launched, { id: userId, role });
  const base = pinned.config;
  const seen = new Set<string>();
  input.benchmarks.forEach((b, i) => {
    const key = `${b.dataset}|${b.split ?? base.data.split}`;
    if (seen.has(key)) throw new DomainError("BAD_REQUEST", `benchmark ${b.dataset} (${b.split ?? base.data.split} split) is listed twice`, [{ path: `benchmarks.${i}.dataset`, message: "listed twice" }]);
    seen.add(key);
  });
  const plan = input.benchmarks.flatMap((benchmark, i) =>
    input.arms.map((arm) => ({ benchmark, arm, config: validRunConfig(armConfig(base, arm, benchmark), `benchmarks.${i}`) })),
  );
  await assertComparisonLaunchable(
    input.benchmarks.map((_, i) => plan[i * input.arms.length]!.config),
    { id: userId, role },
  );
  const tag = `ttc-${crypto.randomBytes(4).toString("hex")}`;
  return prisma.$transaction(async (tx) => {
    const runs: { id: string; name: string; dataset: string; arm: TestTimeArm }[] = [];
    for (const p of plan) {
      const name = `${input.name} · ${benchmarkLabel(p.benchmark.dataset)} · ${armLabel(p.arm, p.arm === "none" ? null : base.testTime.attempts)}`;
      const run = await insertRun(tx, userId, { name: name.slice(0, 200), tags: ["test-time", tag] }, p.config, pinned.checkpointId);
      runs.push({ id: run.id, name: run.name, dataset: p.benchmark.dataset, arm: p.arm });
    }
    const report = await tx.report.create({
      data: { title: input.name, body: comparisonNotes(base, input), runIds: runs.map((r) => r.id), createdById: userId },
      select: { id: true },
    });
    return { reportId: report.id, tag, runs };
  });
}
