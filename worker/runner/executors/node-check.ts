/**
 * Verifies that every node a run's config names is registered and answers its protocol's health check,
 * recording the result on the node (lib/node-health.ts probeAndRecord, the same probe as the Nodes
 * page's Test button). Both executors run it first; it is also the whole job of `nodeCheckExecutor`.
 */
import { probeAndRecord } from "../../../lib/node-health";
import { nodesWithRoles } from "../../../lib/node-refs";
import type { RunContext } from "../context";
import { throwIfCancelled } from "../context";
import { whileDatabaseDown } from "../durable";

export async function checkNodes(ctx: RunContext, opts: { reportProgress: boolean } = { reportProgress: true }) {
  const nodes = nodesWithRoles(ctx.config);
  let done = 0;
  for (const { node: name, refs } of nodes) {
    throwIfCancelled(ctx.signal);
    const roles = refs.map((r) => r.role).join(", ");
    const tested = await whileDatabaseDown(() => probeAndRecord(ctx.prisma, { name }), { signal: ctx.signal });
    if (!tested) throw new Error(`node "${name}" (${roles}) is not registered; add it on the Nodes page`);
    const { probe } = tested;
    if (!probe.healthy) throw new Error(`node "${name}" (${roles}) failed its health check: ${probe.detail}`);
    await ctx.log("info", `node "${name}" (${roles}) healthy in ${probe.latencyMs} ms: ${probe.models.join(", ") || "no models listed"}`);
    done += 1;
    if (opts.reportProgress) await ctx.progress(done, nodes.length);
  }
}

export async function nodeCheckExecutor(ctx: RunContext) {
  await ctx.log("info", "checking the run's nodes");
  await checkNodes(ctx);
}
