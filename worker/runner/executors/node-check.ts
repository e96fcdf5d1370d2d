/**
 * Before a run: every node its config names is registered and passes the node doctor
 * (lib/node-doctor) for each model and role it is used in — the same doctor and the same verdict as
 * the Nodes page and the launch gate of runs.create (lib/node-health.ts doctorAndRecord records the
 * report on the node). A report younger than WORKER_REPORT_REUSE_MS (the one the launch just made) is
 * taken as it is. It is the whole job of `nodeCheckExecutor`; both run executors run `checkRunnable`:
 * this, then the launch check itself (lib/launch-check) on the stored config.
 */
import { describeProblems, launchProblems } from "../../../lib/launch-check";
import { type DoctorReport, refusalFor } from "../../../lib/node-doctor";
import { WORKER_REPORT_REUSE_MS, doctorAndRecord, latestReport } from "../../../lib/node-health";
import { nodesWithRoles } from "../../../lib/node-refs";
import type { RunContext } from "../context";
import { throwIfCancelled } from "../context";
import { whileDatabaseDown } from "../durable";

export async function checkNodes(ctx: RunContext, opts: { reportProgress: boolean } = { reportProgress: true }) {
  const nodes = nodesWithRoles(ctx.config);
  // Reading the node and recording its report wait out a database outage (worker/runner/durable.ts).
  const wait = { signal: ctx.signal };
  let done = 0;
  for (const { node: name, refs } of nodes) {
    throwIfCancelled(ctx.signal);
    const roles = refs.map((r) => r.role).join(", ");
    const models = [...new Set(refs.map((r) => r.model))];
    const node = await whileDatabaseDown(() => ctx.prisma.node.findUnique({ where: { name }, select: { id: true } }), wait);
    if (!node) throw new Error(`node "${name}" (${roles}) is not registered; add it on the Nodes page`);
    const reports: DoctorReport[] = [];
    const reused: string[] = [];
    for (const model of models) {
      const recent = await whileDatabaseDown(() => latestReport(ctx.prisma, node.id, model), wait);
      if (recent && Date.now() - Date.parse(recent.checkedAt) < WORKER_REPORT_REUSE_MS) {
        reports.push(recent);
        reused.push(model);
      }
    }
    const toCheck = models.filter((m) => !reused.includes(m));
    if (toCheck.length > 0) {
      const recorded = await whileDatabaseDown(() => doctorAndRecord(ctx.prisma, { id: node.id }, { models: toCheck, by: "worker" }), wait);
      if (!recorded) throw new Error(`node "${name}" (${roles}) is not registered; add it on the Nodes page`);
      reports.push(...recorded.reports);
    }
    for (const ref of refs) {
      const report = reports.find((r) => r.model === ref.model);
      if (!report) throw new Error(`node "${name}" (${ref.role}): the doctor did not check model "${ref.model}"`);
      const refusal = refusalFor(ref, report, { loraRank: ref.role === "policy" ? ctx.config.policy.loraRank : undefined, training: ctx.config.kind === "train" });
      if (refusal) throw new Error(refusal);
    }
    const checked = reports.filter((r) => toCheck.includes(r.model ?? ""));
    const ms = checked.reduce((n, r) => n + r.durationMs, 0);
    const parts = [
      checked.length ? `in ${ms} ms for ${toCheck.map((m) => `"${m}"`).join(", ")}` : null,
      reused.length ? `${Math.round((Date.now() - Math.min(...reports.filter((r) => reused.includes(r.model ?? "")).map((r) => Date.parse(r.checkedAt)))) / 1000)} s ago for ${reused.map((m) => `"${m}"`).join(", ")}` : null,
    ].filter(Boolean);
    await ctx.log("info", `node "${name}" (${roles}) passed the node doctor ${parts.join(", and ")}`);
    done += 1;
    if (opts.reportProgress) await ctx.progress(done, nodes.length);
  }
}

/**
 * The launch check again, before the first step: the dataset, the nodes and the prompts' fit may have
 * changed since the launch (a dataset deleted, a node re-registered with a smaller context). The stored
 * config is checked as launched (its settings are not re-checked for keys removed since); the doctor
 * reports are the ones `checkNodes` just recorded. The run fails with the problems the API would name.
 */
export async function checkRunnable(ctx: RunContext) {
  await checkNodes(ctx, { reportProgress: false });
  const wait = { signal: ctx.signal };
  const problems = await whileDatabaseDown(
    () => launchProblems(ctx.config, { prisma: ctx.prisma, doctorReport: (node, model) => latestReport(ctx.prisma, node.id, model) }),
    wait,
  );
  if (problems.length) throw new Error(`cannot run: ${describeProblems(problems)}`);
}

export async function nodeCheckExecutor(ctx: RunContext) {
  await ctx.log("info", "checking the run's nodes");
  await checkNodes(ctx);
}
