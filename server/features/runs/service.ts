/** Run lifecycle on the web side: create (validated, queued in one transaction), list, read, cancel, resume. */
import type { Prisma } from "@prisma/client";
import { parseRunConfig, type RunConfig } from "../../../contracts/run-config";
import { terminalStatuses, type RunStatus } from "../../../contracts/jobs";
import { prisma } from "../../../lib/db";
import { DomainError, notFound } from "../../lib/errors";
import { sendRunJob } from "../../lib/queue";
import { listMetricKeys, metricSeries } from "../metrics/service";
import { mayChangeRun, mayTestNode, RUN_CHANGE_RULE, type Actor as PermissionActor } from "../../../lib/permissions";
import { nodeRefsOf } from "../../../lib/node-refs";
import { checkpointVerdict, describeProblems, launchProblems, parseLaunchConfig, pinCheckpoint, type LaunchProblem } from "../../../lib/launch-check";
import { DOCTOR_REPORT_MAX_AGE_MS, doctorAndRecord, latestReport } from "../../../lib/node-health";
import { nodeSelect, SERVER_DOCTOR_TIMEOUT_MS } from "../nodes/service";

/** Columns for run lists: no config body, no logs. */
export const runListSelect = {
  id: true,
  name: true,
  kind: true,
  status: true,
  paradigm: true,
  policyNode: true,
  tags: true,
  progressStep: true,
  totalSteps: true,
  etaSeconds: true,
  latestMetrics: true,
  bestMetrics: true,
  error: true,
  statusDetail: true,
  cancelRequested: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  createdById: true,
  createdBy: { select: { name: true, email: true } },
} satisfies Prisma.RunSelect;

export const runDetailSelect = {
  ...runListSelect,
  config: true,
  configVersion: true,
  attempts: true,
  heartbeatAt: true,
  parentRunId: true,
  studyId: true,
  updatedAt: true,
  archivedAt: true,
  archiveUri: true,
  retainTurnsDays: true,
  evaluatedCheckpoint: { select: { id: true, step: true, runId: true, run: { select: { name: true } } } },
} satisfies Prisma.RunSelect;

export interface CreateRunInput {
  name: string;
  tags: string[];
  config?: unknown;
  parentRunId?: string;
  /** The study the run belongs to and its cell there (server/features/studies). */
  study?: { id: string; cell: { values: Record<string, unknown>; seed: number } };
}

/** The run config, parsed, or a BAD_REQUEST naming every bad field (under `config.`, or `prefix` when given). */
export function validRunConfig(input: unknown, prefix = "config") {
  const parsed = parseRunConfig(input);
  if (!parsed.ok) throw invalidConfig(parsed.errors, prefix);
  return parsed.config;
}

/**
 * A NEW launch's config: strict (an unknown setting anywhere is refused, lib/launch-check
 * parseLaunchConfig), then the schema; a BAD_REQUEST names every bad field under `prefix`.
 */
export function validLaunchConfig(input: unknown, prefix = "config") {
  const parsed = parseLaunchConfig(input);
  if (!parsed.ok) throw invalidConfig(parsed.errors, prefix);
  return parsed.config;
}

function invalidConfig(errors: LaunchProblem[], prefix: string) {
  const first = errors[0]!;
  return new DomainError(
    "BAD_REQUEST",
    `invalid run config: ${first.path || "(root)"}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ""}`,
    errors.map((e) => ({ path: e.path ? `${prefix}.${e.path}` : prefix, message: e.message })),
  );
}

/**
 * Insert one queued run, its first log line and its job inside the caller's transaction (the config already
 * validated, its checkpoint pinned by `withPinnedCheckpoint`: `evaluatedCheckpointId` records it).
 */
export async function insertRun(tx: Prisma.TransactionClient, userId: string, input: Omit<CreateRunInput, "config">, config: RunConfig, evaluatedCheckpointId?: string) {
  // Hold the named nodes until the run is committed: removeNode locks the node row first, so a node is
  // never removed between its in-use check and a run that names it being queued.
  const nodeNames = [...new Set(nodeRefsOf(config).map((r) => r.node))];
  if (nodeNames.length > 0) await tx.$queryRaw`SELECT id FROM "node" WHERE name = ANY(${nodeNames}::text[]) FOR SHARE`;
  const totalSteps = config.kind === "train" ? config.schedule.steps : 1;
  const run = await tx.run.create({
    data: {
      name: input.name,
      kind: config.kind,
      status: "queued",
      config: config as unknown as Prisma.InputJsonValue,
      configVersion: config.schemaVersion,
      paradigm: config.rollout.paradigm,
      policyNode: config.policy.node,
      tags: input.tags,
      totalSteps,
      parentRunId: input.parentRunId,
      ...(input.study ? { studyId: input.study.id, studyCell: input.study.cell as Prisma.InputJsonValue } : {}),
      evaluatedCheckpointId,
      createdById: userId,
    },
    select: runDetailSelect,
  });
  await tx.runLog.create({ data: { runId: run.id, level: "info", message: config.kind === "train" ? `run queued (train, ${totalSteps} steps)` : "run queued (evaluation)" } });
  await sendRunJob(tx, { runId: run.id, reason: "created" });
  return run;
}

/**
 * The launch check (lib/launch-check) as the server runs it. The node doctor's verdict per (node, model):
 * - a report younger than DOCTOR_REPORT_MAX_AGE_MS is taken as it is;
 * - a missing or older one is re-checked now when the launching user may probe the node's URL
 *   (lib/permissions.ts mayTestNode); otherwise a failed report still refuses, and a node never checked
 *   is left to the worker, which runs the same doctor and the same check before the first step.
 * Paths are the config's ("policy.node", "data.dataset"), without a prefix.
 */
export async function launchRefusals(config: RunConfig, actor: PermissionActor): Promise<LaunchProblem[]> {
  return launchProblems(config, {
    prisma,
    actor,
    async doctorReport(node, model) {
      const report = await latestReport(prisma, node.id, model);
      const stale = !report || Date.now() - Date.parse(report.checkedAt) > DOCTOR_REPORT_MAX_AGE_MS;
      if (!stale || !mayTestNode(node, actor)) return report;
      const checked = await doctorAndRecord(prisma, { id: node.id }, { models: [model], by: "server", timeoutMs: SERVER_DOCTOR_TIMEOUT_MS });
      return checked?.reports[0] ?? report;
    },
  });
}

/** Throws a BAD_REQUEST naming every refusal of the launch check, each on its field under `prefix`. */
export async function assertLaunchable(config: RunConfig, actor: PermissionActor, prefix = "config"): Promise<void> {
  const refusals = await launchRefusals(config, actor);
  if (refusals.length === 0) return;
  throw new DomainError(
    "BAD_REQUEST",
    `cannot launch: ${describeProblems(refusals)}`,
    refusals.map((r) => ({ path: `${prefix}.${r.path}`, message: r.message })),
  );
}

/**
 * A launchable config with its checkpoint (policy.checkpoint) pinned as the launch check resolved it: the
 * run by id, the step by number ("latest" becomes the step it is now), and the checkpoint's id for the run
 * row's lineage. Configs without a checkpoint come back as they are.
 */
export async function withPinnedCheckpoint(config: RunConfig, actor: PermissionActor): Promise<{ config: RunConfig; checkpointId?: string }> {
  if (!config.policy.checkpoint) return { config };
  const { checkpoint, problems } = await checkpointVerdict(prisma, config, actor);
  if (!checkpoint) throw new DomainError("BAD_REQUEST", `cannot launch: ${describeProblems(problems)}`, problems.map((p) => ({ path: `config.${p.path}`, message: p.message })));
  return { config: pinCheckpoint(config, checkpoint), checkpointId: checkpoint.id };
}

export async function createRun(userId: string, input: CreateRunInput, role = "member") {
  const actor = { id: userId, role };
  const config = validLaunchConfig(input.config);
  await assertLaunchable(config, actor);
  const pinned = await withPinnedCheckpoint(config, actor);
  return prisma.$transaction((tx) => insertRun(tx, userId, input, pinned.config, pinned.checkpointId));
}

/**
 * Prisma passes `contains` into LIKE as is: % and _ would match anything. Escape them (and the escape
 * character itself) so a search is a literal substring.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export interface ListRunsInput {
  limit: number;
  cursor?: string | null;
  search?: string;
  status?: RunStatus[];
  kind?: "train" | "eval";
  tag?: string;
}

/** Keyset pagination on (createdAt desc, id desc): page cost does not grow with the table. */
export async function listRuns(input: ListRunsInput) {
  const where: Prisma.RunWhereInput = {};
  if (input.search) where.name = { contains: escapeLike(input.search), mode: "insensitive" };
  if (input.status?.length) where.status = { in: input.status };
  if (input.kind) where.kind = input.kind;
  if (input.tag) where.tags = { has: input.tag };
  if (input.cursor) {
    const anchor = await prisma.run.findUnique({ where: { id: input.cursor }, select: { createdAt: true, id: true } });
    if (anchor) {
      where.OR = [
        { createdAt: { lt: anchor.createdAt } },
        { createdAt: anchor.createdAt, id: { lt: anchor.id } },
      ];
    }
  }
  const rows = await prisma.run.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    select: runListSelect,
  });
  const hasMore = rows.length > input.limit;
  const items = hasMore ? rows.slice(0, input.limit) : rows;
  return { items, nextCursor: hasMore ? items[items.length - 1]!.id : null };
}

export async function getRun(id: string) {
  const run = await prisma.run.findUnique({ where: { id }, select: runDetailSelect });
  if (!run) throw notFound("run", id);
  return run;
}

interface Actor extends PermissionActor {
  email: string;
}

function assertMayChangeRun(run: { createdById: string }, actor: Actor, action: string) {
  if (!mayChangeRun(run, actor)) throw new DomainError("FORBIDDEN", `you cannot ${action} this run: ${RUN_CHANGE_RULE}`);
}

export async function cancelRun(id: string, actor: Actor) {
  const byEmail = actor.email;
  return prisma.$transaction(async (tx) => {
    // Row lock so a worker finishing the run at the same moment cannot interleave with us.
    const rows = await tx.$queryRaw<{ status: string; createdById: string }[]>`select status, "createdById" from "run" where id = ${id} for update`;
    if (rows.length === 0) throw notFound("run", id);
    assertMayChangeRun(rows[0]!, actor, "cancel");
    const status = rows[0]!.status as RunStatus;
    if (terminalStatuses.includes(status)) {
      throw new DomainError("CONFLICT", `run ${id} already finished (${status}); nothing to cancel`);
    }
    if (status === "queued") {
      await tx.run.update({ where: { id }, data: { status: "cancelled", cancelRequested: true, finishedAt: new Date(), etaSeconds: null } });
      await tx.runLog.create({ data: { runId: id, level: "warn", message: `cancelled before start by ${byEmail}` } });
    } else {
      await tx.run.update({ where: { id }, data: { cancelRequested: true } });
      await tx.runLog.create({ data: { runId: id, level: "warn", message: `cancel requested by ${byEmail}` } });
    }
    return tx.run.findUniqueOrThrow({ where: { id }, select: runDetailSelect });
  });
}

/** Re-queue a failed or cancelled run; the worker continues from the last committed step and checkpoint. */
export async function resumeRun(id: string, actor: Actor) {
  const byEmail = actor.email;
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ status: string; createdById: string; archivedAt: Date | null }[]>`select status, "createdById", "archivedAt" from "run" where id = ${id} for update`;
    if (rows.length === 0) throw notFound("run", id);
    assertMayChangeRun(rows[0]!, actor, "resume");
    const status = rows[0]!.status as RunStatus;
    if (status !== "failed" && status !== "cancelled") {
      throw new DomainError("CONFLICT", `run ${id} is ${status}; only failed or cancelled runs can be resumed`);
    }
    // Its new steps would land beside turns that are in the archive: bring those back first.
    if (rows[0]!.archivedAt) throw new DomainError("CONFLICT", `run ${id}'s turns are archived; restore them before resuming the run`);
    await tx.run.update({
      where: { id },
      data: { status: "queued", cancelRequested: false, error: null, finishedAt: null, workerId: null },
    });
    await tx.runLog.create({ data: { runId: id, level: "info", message: `resume requested by ${byEmail}` } });
    await sendRunJob(tx, { runId: id, reason: "resumed" });
    return tx.run.findUniqueOrThrow({ where: { id }, select: runDetailSelect });
  });
}

export async function listLogs(runId: string, afterId: bigint | null, limit: number) {
  const logs = await prisma.runLog.findMany({
    where: { runId, ...(afterId != null ? { id: { gt: afterId } } : {}) },
    orderBy: { id: "asc" },
    take: limit,
    select: { id: true, ts: true, level: true, message: true },
  });
  return logs;
}

/** Checkpoints saved by a run, newest first, with how many evaluations each has. */
export async function listCheckpoints(runId: string) {
  const rows = await prisma.checkpoint.findMany({
    where: { runId },
    orderBy: { step: "desc" },
    take: 500,
    select: { id: true, step: true, nodeName: true, statePath: true, samplerPath: true, createdAt: true, deletedAt: true, deletedReason: true, _count: { select: { evaluations: true } } },
  });
  // Only a Tinker server's checkpoints are LoRA adapters with an archive (hosted Tinker, SkyRL tx); the
  // embedded node's are full weights of its tiny model.
  const nodes = await prisma.node.findMany({ where: { name: { in: [...new Set(rows.map((r) => r.nodeName))] } }, select: { name: true, kind: true } });
  return rows.map(({ _count, ...c }) => ({ ...c, evaluations: _count.evaluations, exportable: !c.deletedAt && nodes.some((n) => n.name === c.nodeName && n.kind === "tinker") }));
}

/** The evaluation runs of a training run's checkpoints, newest first (the lineage Run.evaluatedCheckpoint). */
export async function listCheckpointEvaluations(runId: string) {
  const rows = await prisma.run.findMany({
    where: { evaluatedCheckpoint: { runId } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
    select: { ...runListSelect, config: true, evaluatedCheckpoint: { select: { step: true } } },
  });
  return rows.map(({ config, evaluatedCheckpoint, ...r }) => {
    const c = config as { data?: { dataset?: unknown }; repeats?: unknown };
    return { ...r, step: evaluatedCheckpoint?.step ?? null, dataset: typeof c.data?.dataset === "string" ? c.data.dataset : null, repeats: typeof c.repeats === "number" ? c.repeats : 1 };
  });
}

/** Health of the nodes a run uses (policy first) with their roles, from the node table; unknown names have no node. */
export async function runNodeHealth(id: string) {
  const run = await prisma.run.findUnique({ where: { id }, select: { policyNode: true, config: true } });
  if (!run) throw notFound("run", id);
  const refs = nodeRefsOf(run.config);
  const names = [...new Set([run.policyNode, ...refs.map((r) => r.node)])];
  const nodes = await prisma.node.findMany({ where: { name: { in: names } }, select: nodeSelect });
  return names.map((name) => {
    const roles = refs.filter((r) => r.node === name).map((r) => `${r.role} (${r.model})`);
    return { name, roles: roles.length ? roles : ["policy"], node: nodes.find((n) => n.name === name) ?? null };
  });
}

/** A run's metric keys and their series (all keys unless some are named), downsampled by step. */
export async function runMetrics(input: { id: string; keys?: string[]; maxPoints: number; fromStep?: number; toStep?: number }) {
  const run = await prisma.run.findUnique({ where: { id: input.id }, select: { id: true } });
  if (!run) throw notFound("run", input.id);
  const keys = await listMetricKeys(input.id);
  const wanted = input.keys?.length ? [...new Set(input.keys)] : keys;
  const from = input.fromStep ?? null;
  const to = input.toStep ?? null;
  if (from != null && to != null && from > to) {
    throw new DomainError("BAD_REQUEST", "fromStep must not exceed toStep", [{ path: "fromStep", message: "must not exceed toStep" }]);
  }
  const { series } = await metricSeries({
    runId: input.id,
    keys: wanted,
    maxPoints: input.maxPoints,
    axis: "step",
    stepRange: from != null || to != null ? { from: from ?? -2147483648, to: to ?? 2147483647 } : null,
  });
  return {
    keys,
    series: series.map((s) => ({
      key: s.key,
      total: s.total,
      bucketSize: s.bucketSize,
      points: s.points.map((p) => ({ step: p.step, value: p.mean, min: p.min, max: p.max, n: p.n })),
    })),
  };
}
