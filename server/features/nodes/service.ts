/**
 * Attached model nodes. API keys are encrypted at rest and never selected for responses; URLs never carry
 * credentials (they are shown to every viewer).
 *
 * Who may do what: any member adds nodes; the member who added a node, or an admin, removes it. Testing
 * probes the node's URL from the server, so a member may test only nodes whose URL an admin vouched for
 * (added by an admin, or registered by the system like the embedded node); testing any other URL is for
 * admins — otherwise "test" would tell a member which ports are open on the server's network.
 */
import type { Prisma } from "@prisma/client";
import type { NodeSettings } from "../../../contracts/node-settings";
import { probeAndRecord, type NodeKind } from "../../../lib/node-health";
import { nodeRefsOf } from "../../../lib/node-refs";
import { prisma } from "../../../lib/db";
import { DomainError, notFound } from "../../lib/errors";
import { encryptSecret } from "../../../lib/secrets";
import { mayRemoveNode, mayTestNode, NODE_REMOVE_RULE, NODE_TEST_RULE, type Actor } from "../../../lib/permissions";

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
  createdById: true,
  createdBy: { select: { name: true, email: true, role: true } },
} satisfies Prisma.NodeSelect;

/** "http://user:pw@host/" → "http://host/": for rows stored before credentials in URLs were refused. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url;
  }
}

export async function listNodes(actor: Actor) {
  const rows = await prisma.node.findMany({ orderBy: { name: "asc" }, select: { ...nodeSelect, apiKeyEnc: true } });
  // Only whether a key is set ever leaves the server; what the caller may do is said per node.
  return rows.map(({ apiKeyEnc, createdBy, ...n }) => ({
    ...n,
    baseUrl: withoutCredentials(n.baseUrl),
    addedBy: createdBy ? { name: createdBy.name, email: createdBy.email } : null,
    hasApiKey: apiKeyEnc != null,
    canRemove: mayRemoveNode({ createdById: n.createdById, createdBy }, actor),
    canTest: mayTestNode({ createdById: n.createdById, createdBy }, actor),
  }));
}

export async function addNode(input: { name: string; kind: NodeKind; baseUrl: string; apiKey?: string; settings?: NodeSettings }, actor: Actor) {
  const exists = await prisma.node.findUnique({ where: { name: input.name }, select: { id: true } });
  if (exists) throw new DomainError("CONFLICT", `a node named ${input.name} already exists`, [{ path: "name", message: "already taken" }]);
  return prisma.node.create({
    data: {
      name: input.name,
      kind: input.kind,
      baseUrl: input.baseUrl,
      apiKeyEnc: input.apiKey ? encryptSecret(input.apiKey) : null,
      ...(input.settings ? { settings: input.settings as Prisma.InputJsonObject } : {}),
      createdById: actor.id,
    },
    select: nodeSelect,
  });
}

/** Probe the node now and record the result (the same probe the worker runs before every run). */
export async function testNode(id: string, actor: Actor) {
  const owner = await prisma.node.findUnique({ where: { id }, select: { createdById: true, createdBy: { select: { role: true } } } });
  if (!owner) throw notFound("node", id);
  if (!mayTestNode(owner, actor)) throw new DomainError("FORBIDDEN", `you cannot test this node: ${NODE_TEST_RULE}`);
  const tested = await probeAndRecord(prisma, { id });
  if (!tested) throw notFound("node", id);
  const node = await prisma.node.findUniqueOrThrow({ where: { id }, select: nodeSelect });
  return { node, probe: tested.probe };
}

/** Delete a node, unless a queued or running run uses it in any role (policy, simulators, judge). */
export async function removeNode(id: string, actor: Actor) {
  const node = await prisma.node.findUnique({ where: { id }, select: { id: true, name: true, createdById: true, createdBy: { select: { role: true } } } });
  if (!node) throw notFound("node", id);
  if (!mayRemoveNode(node, actor)) throw new DomainError("FORBIDDEN", `you cannot remove node ${node.name}: ${NODE_REMOVE_RULE}`);
  const active = await prisma.run.findMany({
    where: { status: { in: ["queued", "running"] } },
    orderBy: { createdAt: "asc" },
    select: { id: true, name: true, status: true, config: true },
  });
  const users = active
    .map((run) => ({ run, roles: nodeRefsOf(run.config).filter((r) => r.node === node.name).map((r) => r.role) }))
    .filter((u) => u.roles.length > 0);
  if (users.length > 0) {
    const listed = users.slice(0, 5).map((u) => `"${u.run.name}" (${u.run.status}; ${u.roles.join(", ")})`);
    const more = users.length > 5 ? ` and ${users.length - 5} more` : "";
    throw new DomainError(
      "CONFLICT",
      `node ${node.name} is used by ${users.length} queued or running run${users.length === 1 ? "" : "s"}: ${listed.join(", ")}${more}; cancel ${users.length === 1 ? "it" : "them"} or wait until ${users.length === 1 ? "it finishes" : "they finish"}`,
      users.map((u) => ({ path: `runs.${u.run.id}`, message: `${u.run.name}: ${u.roles.join(", ")}` })),
    );
  }
  await prisma.node.delete({ where: { id } });
  return { id };
}
