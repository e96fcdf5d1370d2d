/**
 * Before a run: every node its config names is registered and passes the node doctor
 * (lib/node-doctor) for each model and role it is used in — the same doctor and the same verdict as
 * the Nodes page and the launch gate of runs.create (lib/node-health.ts doctorAndRecord records the
 * report on the node). Both executors run it first; it is also the whole job of `nodeCheckExecutor`.
 */
import { refusalFor } from "../../../lib/node-doctor";
import { doctorAndRecord } from "../../../lib/node-health";
import { nodesWithRoles } from "../../../lib/node-refs";
import type { RunContext } from "../context";
import { throwIfCancelled } from "../context";

export async function checkNodes(ctx: RunContext, opts: { reportProgress: boolean } = { reportProgress: true }) {
  const nodes = nodesWithRoles(ctx.config);
  let done = 0;
  for (const { node: name, refs } of nodes) {
    throwIfCancelled(ctx.signal);
    const roles = refs.map((r) => r.role).join(", ");
    const models = [...new Set(refs.map((r) => r.model))];
    const recorded = await doctorAndRecord(ctx.prisma, { name }, { models, by: "worker" });
    if (!recorded) throw new Error(`node "${name}" (${roles}) is not registered; add it on the Nodes page`);
    for (const ref of refs) {
      const report = recorded.reports.find((r) => r.model === ref.model);
      if (!report) throw new Error(`node "${name}" (${ref.role}): the doctor did not check model "${ref.model}"`);
      const refusal = refusalFor(ref, report, { loraRank: ref.role === "policy" ? ctx.config.policy.loraRank : undefined });
      if (refusal) throw new Error(refusal);
    }
    const ms = recorded.reports.reduce((n, r) => n + r.durationMs, 0);
    await ctx.log("info", `node "${name}" (${roles}) passed the node doctor in ${ms} ms for ${models.map((m) => `"${m}"`).join(", ")}`);
    done += 1;
    if (opts.reportProgress) await ctx.progress(done, nodes.length);
  }
}

export async function nodeCheckExecutor(ctx: RunContext) {
  await ctx.log("info", "checking the run's nodes");
  await checkNodes(ctx);
}
