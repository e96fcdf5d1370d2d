/**
 * Verifies that every node a run's config names is registered and answers its protocol's health check,
 * recording the result on the node. Training and evaluation executors run it first; it is also the
 * whole job for configs whose engine path is not available.
 */
import { probeNode, type NodeKind } from "../../../lib/node-health";
import { decryptSecret } from "../../../lib/secrets";
import type { RunContext } from "../context";
import { throwIfCancelled } from "../context";

export function nodesNamedBy(config: RunContext["config"]): { role: string; node: string }[] {
  const named = [{ role: "policy", node: config.policy.node }];
  if (config.rollout.simulator) named.push({ role: "tool simulator", node: config.rollout.simulator.node });
  if (config.rollout.userSimulator) named.push({ role: "user simulator", node: config.rollout.userSimulator.node });
  if (config.reward.judge) named.push({ role: "judge", node: config.reward.judge.node });
  return named;
}

export async function checkNodes(ctx: RunContext, opts: { reportProgress: boolean } = { reportProgress: true }) {
  const named = nodesNamedBy(ctx.config);
  const distinct = [...new Set(named.map((n) => n.node))];
  let done = 0;
  for (const name of distinct) {
    throwIfCancelled(ctx.signal);
    const roles = named.filter((n) => n.node === name).map((n) => n.role).join(", ");
    const node = await ctx.prisma.node.findUnique({
      where: { name },
      select: { id: true, kind: true, baseUrl: true, apiKeyEnc: true },
    });
    if (!node) throw new Error(`node "${name}" (${roles}) is not registered; add it on the Nodes page`);
    const probe = await probeNode({
      kind: node.kind as NodeKind,
      baseUrl: node.baseUrl,
      apiKey: node.apiKeyEnc ? decryptSecret(node.apiKeyEnc) : null,
    });
    await ctx.prisma.node.update({
      where: { id: node.id },
      data: {
        health: probe.healthy ? "healthy" : "unhealthy",
        healthDetail: probe.detail,
        ...(probe.healthy ? { lastSeenAt: new Date(), models: probe.models, capabilities: probe.capabilities } : {}),
      },
    });
    if (!probe.healthy) throw new Error(`node "${name}" (${roles}) failed its health check: ${probe.detail}`);
    await ctx.log("info", `node "${name}" (${roles}) healthy in ${probe.latencyMs} ms: ${probe.models.join(", ") || "no models listed"}`);
    done += 1;
    if (opts.reportProgress) await ctx.progress(done, distinct.length);
  }
}

export async function nodeCheckExecutor(ctx: RunContext) {
  await ctx.log("info", "checking the run's nodes");
  await checkNodes(ctx);
}
