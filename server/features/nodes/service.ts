/**
 * Attached model nodes. API keys are encrypted at rest and never selected for responses; URLs never carry
 * credentials (they are shown to every viewer).
 *
 * Who may do what (lib/permissions.ts): nodes are infrastructure — the server (node doctor) and the worker
 * (runs) make requests to a node's URL with its key — so only admins add, change and remove them;
 * members use them in runs and may run the doctor on nodes an admin vouched for (added by an admin, or
 * registered by the system like the embedded node); viewers read. A node a member added before this rule
 * is tested and changed by admins only. Base URLs are stored in their normal form (lib/node-url.ts) and
 * every request to a node joins its path onto it.
 */
import type { Prisma } from "@prisma/client";
import { openAINodeSettingsSchema, type NodeSettings } from "../../../contracts/node-settings";
import { doctorAndRecord, type NodeKind } from "../../../lib/node-health";
import { parseDoctorReport, type DoctorReport } from "../../../lib/node-doctor";
import { nodeRefsOf } from "../../../lib/node-refs";
import { bfclNodeRefsOf } from "../../../lib/bfcl/not-run";
import { prisma } from "../../../lib/db";
import { DomainError, notFound } from "../../lib/errors";
import { encryptSecret } from "../../../lib/secrets";
import { mayAddNode, mayEditNode, mayRemoveNode, mayTestNode, NODE_ADD_RULE, NODE_EDIT_RULE, NODE_REMOVE_RULE, NODE_TEST_RULE, type Actor } from "../../../lib/permissions";

/** Per request and per awaited result when the server runs the doctor (add, edit, Run doctor, launch). */
export const SERVER_DOCTOR_TIMEOUT_MS = 30_000;

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

/** The node doctor's latest reports of a node, newest first (unreadable ones left out). */
const reportSelect = { orderBy: { checkedAt: "desc" }, select: { report: true, checkedBy: true } } satisfies Prisma.Node$doctorReportsArgs;

function readReports(rows: { report: Prisma.JsonValue; checkedBy: string }[]): (DoctorReport & { checkedBy: string })[] {
  return rows.flatMap((r) => {
    const report = parseDoctorReport(r.report);
    return report ? [{ ...report, checkedBy: r.checkedBy }] : [];
  });
}

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

/** Live request leases per node (worker/runner/node-slots.ts writes them). */
async function inFlightByNode(): Promise<Map<string, number>> {
  const rows = await prisma.$queryRaw<{ nodeName: string; n: number }[]>`
    select "nodeName", count(*)::int as n from node_slot_lease where "expiresAt" >= now() group by "nodeName"`;
  return new Map(rows.map((r) => [r.nodeName, r.n]));
}

/** The node's openai.maxConcurrency (its default when unset or unreadable). */
function concurrencyLimit(settings: Prisma.JsonValue): number {
  const openai = settings && typeof settings === "object" && !Array.isArray(settings) ? (settings as Record<string, unknown>).openai : undefined;
  const parsed = openAINodeSettingsSchema.safeParse(openai ?? {});
  return parsed.success ? parsed.data.maxConcurrency : openAINodeSettingsSchema.parse({}).maxConcurrency;
}

export async function listNodes(actor: Actor) {
  const [rows, inFlight] = await Promise.all([
    prisma.node.findMany({ orderBy: { name: "asc" }, select: { ...nodeSelect, settings: true, apiKeyEnc: true, doctorReports: reportSelect } }),
    inFlightByNode(),
  ]);
  // Only whether a key is set ever leaves the server; what the caller may do is said per node.
  return rows.map(({ apiKeyEnc, createdBy, doctorReports, ...n }) => ({
    ...n,
    baseUrl: withoutCredentials(n.baseUrl),
    addedBy: createdBy ? { name: createdBy.name, email: createdBy.email } : null,
    hasApiKey: apiKeyEnc != null,
    doctor: readReports(doctorReports),
    canRemove: mayRemoveNode({ createdById: n.createdById, createdBy }, actor),
    canEdit: mayEditNode({ createdById: n.createdById, createdBy }, actor),
    canTest: mayTestNode({ createdById: n.createdById, createdBy }, actor),
    inFlight: inFlight.get(n.name) ?? 0,
    concurrencyLimit: concurrencyLimit(n.settings),
  }));
}

/** The node as the API returns it after a change, with its doctor reports. */
async function nodeWithReports(id: string) {
  const node = await prisma.node.findUniqueOrThrow({ where: { id }, select: { ...nodeSelect, settings: true, doctorReports: reportSelect } });
  const { doctorReports, ...rest } = node;
  return { ...rest, doctor: readReports(doctorReports) };
}

/**
 * Registers a node (admins), then runs the node doctor on it. A node that
 * fails the doctor is still registered (it may be started later): its report says what is wrong, and
 * runs on it are refused at launch until it passes.
 */
export async function addNode(input: { name: string; kind: NodeKind; baseUrl: string; apiKey?: string; settings?: NodeSettings }, actor: Actor) {
  if (!mayAddNode(actor)) throw new DomainError("FORBIDDEN", `you cannot add nodes: ${NODE_ADD_RULE}`);
  const exists = await prisma.node.findUnique({ where: { name: input.name }, select: { id: true } });
  if (exists) throw new DomainError("CONFLICT", `a node named ${input.name} already exists`, [{ path: "name", message: "already taken" }]);
  const created = await prisma.node.create({
    data: {
      name: input.name,
      kind: input.kind,
      baseUrl: input.baseUrl,
      apiKeyEnc: input.apiKey ? encryptSecret(input.apiKey) : null,
      ...(input.settings ? { settings: input.settings as Prisma.InputJsonObject } : {}),
      createdById: actor.id,
    },
    select: { id: true },
  });
  // An admin's node is vetted by being added: the doctor runs at once.
  await doctorAndRecord(prisma, { id: created.id }, { by: "server", timeoutMs: SERVER_DOCTOR_TIMEOUT_MS });
  return nodeWithReports(created.id);
}

/**
 * Edits a node's URL, API key or settings. Its doctor reports described the node before the change,
 * so they are dropped in the same transaction (health back to unknown); the doctor then runs again.
 */
export async function updateNode(input: { id: string; baseUrl?: string; apiKey?: string | null; settings?: NodeSettings }, actor: Actor) {
  const node = await prisma.node.findUnique({ where: { id: input.id }, select: { id: true, name: true, createdById: true, createdBy: { select: { role: true } } } });
  if (!node) throw notFound("node", input.id);
  if (!mayEditNode(node, actor)) throw new DomainError("FORBIDDEN", `you cannot edit node ${node.name}: ${NODE_EDIT_RULE}`);
  await prisma.$transaction([
    prisma.nodeDoctorReport.deleteMany({ where: { nodeId: node.id } }),
    prisma.node.update({
      where: { id: node.id },
      data: {
        ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
        ...(input.apiKey !== undefined ? { apiKeyEnc: input.apiKey === null ? null : encryptSecret(input.apiKey) } : {}),
        ...(input.settings !== undefined ? { settings: input.settings as Prisma.InputJsonObject } : {}),
        health: "unknown",
        healthDetail: "edited; not checked since",
      },
    }),
  ]);
  await doctorAndRecord(prisma, { id: node.id }, { by: "server", timeoutMs: SERVER_DOCTOR_TIMEOUT_MS });
  return nodeWithReports(node.id);
}

/** Run the node doctor now (for `model`, or the node's default models) and record its report. */
export async function doctorNode(id: string, model: string | undefined, actor: Actor) {
  const owner = await prisma.node.findUnique({ where: { id }, select: { createdById: true, createdBy: { select: { role: true } } } });
  if (!owner) throw notFound("node", id);
  if (!mayTestNode(owner, actor)) throw new DomainError("FORBIDDEN", `you cannot run the doctor on this node: ${NODE_TEST_RULE}`);
  const checked = await doctorAndRecord(prisma, { id }, { by: "server", models: model ? [model] : undefined, timeoutMs: SERVER_DOCTOR_TIMEOUT_MS });
  if (!checked) throw notFound("node", id);
  const { doctor, ...node } = await nodeWithReports(id);
  return { node, doctor, reports: checked.reports };
}

/** Delete a node, unless a queued or running run uses it in any role (policy, simulators, judge). */
export async function removeNode(id: string, actor: Actor) {
  const node = await prisma.node.findUnique({ where: { id }, select: { id: true, name: true, createdById: true, createdBy: { select: { role: true } } } });
  if (!node) throw notFound("node", id);
  if (!mayRemoveNode(node, actor)) throw new DomainError("FORBIDDEN", `you cannot remove node ${node.name}: ${NODE_REMOVE_RULE}`);
  // One transaction, node row locked first: a run being queued that names this node (insertRun holds
  // it FOR SHARE) either commits before the check below sees it, or waits and then finds no node.
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "node" WHERE id = ${id} FOR UPDATE`;
    const active = await tx.run.findMany({
      where: { status: { in: ["queued", "running"] } },
      orderBy: { createdAt: "asc" },
      select: { id: true, name: true, status: true, config: true },
    });
    const users = active
      .map((run) => ({ run, roles: [...nodeRefsOf(run.config), ...bfclNodeRefsOf(run.config)].filter((r) => r.node === node.name).map((r) => r.role) }))
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
    await tx.node.delete({ where: { id } });
    return { id };
  });
}

/** Steps a throughput estimate averages over. */
const THROUGHPUT_STEPS = 20;

export interface NodeThroughput {
  node: string;
  /** The model the steps ran, or null when no step of the asked model exists and the node's others were used. */
  model: string | null;
  /** Committed steps measured (0: no history, no estimate). */
  steps: number;
  /** Wall-clock seconds per rollout at that pace (step duration over its trajectories, summed over the steps). */
  secondsPerRollout: number | null;
  /** Generations (act + rehearse) per rollout, when the steps recorded generation/attempted. */
  generationsPerRollout: number | null;
  lastStepAt: Date | null;
}

/**
 * The pace of a policy node from its last committed steps (train and eval) whose run named it as the
 * policy: total step time over total trajectories. Steps of the same model are preferred.
 */
export async function nodeThroughput(node: string, model?: string): Promise<NodeThroughput> {
  const measure = async (sameModel: boolean) =>
    prisma.$queryRaw<{ durationMs: number; rollouts: number; generations: number | null; finishedAt: Date }[]>`
      select s."durationMs", s."finishedAt",
             (select count(*)::int from trajectory t where t."runId" = s."runId" and t.step = s.index and t.phase = s.kind) as rollouts,
             (s.metrics->>'generation/attempted')::float8 as generations
      from step s join run r on r.id = s."runId"
      where r."policyNode" = ${node}
        and (${!sameModel} or r.config->'policy'->>'model' = ${model ?? ""})
      order by s."finishedAt" desc
      limit ${THROUGHPUT_STEPS}`;
  let rows = model ? await measure(true) : [];
  let measuredModel: string | null = model ?? null;
  if (rows.length === 0) {
    rows = await measure(false);
    measuredModel = null;
  }
  const counted = rows.filter((r) => r.rollouts > 0);
  const rollouts = counted.reduce((s, r) => s + r.rollouts, 0);
  const ms = counted.reduce((s, r) => s + r.durationMs, 0);
  const withGen = counted.filter((r) => r.generations != null);
  const genRollouts = withGen.reduce((s, r) => s + r.rollouts, 0);
  return {
    node,
    model: measuredModel,
    steps: counted.length,
    secondsPerRollout: rollouts > 0 ? ms / 1000 / rollouts : null,
    generationsPerRollout: genRollouts > 0 ? withGen.reduce((s, r) => s + r.generations!, 0) / genRollouts : null,
    lastStepAt: rows[0]?.finishedAt ?? null,
  };
}
