/** Attached model nodes. API keys are encrypted at rest and never selected for responses. */
import type { Prisma } from "@prisma/client";
import type { NodeSettings } from "../../../contracts/node-settings";
import { probeNode, type NodeKind } from "../../../lib/node-health";
import { prisma } from "../../db";
import { DomainError, notFound } from "../../lib/errors";
import { decryptSecret, encryptSecret } from "../../lib/secrets";

export const nodeSelect = {
  id: true,
  name: true,
  kind: true,
  baseUrl: true,
  models: true,
  capabilities: true,
  health: true,
  healthDetail: true,
  lastSeenAt: true,
  createdAt: true,
} satisfies Prisma.NodeSelect;

export async function listNodes() {
  const rows = await prisma.node.findMany({ orderBy: { name: "asc" }, select: { ...nodeSelect, apiKeyEnc: true } });
  // Only whether a key is set ever leaves the server.
  return rows.map(({ apiKeyEnc, ...n }) => ({ ...n, hasApiKey: apiKeyEnc != null }));
}

export async function addNode(input: { name: string; kind: NodeKind; baseUrl: string; apiKey?: string; settings?: NodeSettings }) {
  const exists = await prisma.node.findUnique({ where: { name: input.name }, select: { id: true } });
  if (exists) throw new DomainError("CONFLICT", `a node named ${input.name} already exists`, [{ path: "name", message: "already taken" }]);
  return prisma.node.create({
    data: {
      name: input.name,
      kind: input.kind,
      baseUrl: input.baseUrl,
      apiKeyEnc: input.apiKey ? encryptSecret(input.apiKey) : null,
      ...(input.settings ? { settings: input.settings as Prisma.InputJsonObject } : {}),
    },
    select: nodeSelect,
  });
}

/** Probe the node now and record the result. */
export async function testNode(id: string) {
  const node = await prisma.node.findUnique({ where: { id }, select: { id: true, kind: true, baseUrl: true, apiKeyEnc: true } });
  if (!node) throw notFound("node", id);
  const probe = await probeNode({
    kind: node.kind as NodeKind,
    baseUrl: node.baseUrl,
    apiKey: node.apiKeyEnc ? decryptSecret(node.apiKeyEnc) : null,
  });
  const updated = await prisma.node.update({
    where: { id },
    data: {
      health: probe.healthy ? "healthy" : "unhealthy",
      healthDetail: probe.detail,
      ...(probe.healthy ? { lastSeenAt: new Date(), models: probe.models, capabilities: probe.capabilities } : {}),
    },
    select: nodeSelect,
  });
  return { node: updated, probe };
}

export async function removeNode(id: string) {
  const node = await prisma.node.findUnique({ where: { id }, select: { id: true, name: true } });
  if (!node) throw notFound("node", id);
  const active = await prisma.run.count({ where: { policyNode: node.name, status: { in: ["queued", "running"] } } });
  if (active > 0) throw new DomainError("CONFLICT", `node ${node.name} is used by ${active} queued or running run(s)`);
  await prisma.node.delete({ where: { id } });
  return { id };
}
