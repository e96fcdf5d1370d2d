/**
 * Persists one engine StepResult in ONE transaction: the Step row, its metric points, trajectories,
 * turns, checklist verdicts, an optional checkpoint, and the run's progress and denormalised metrics.
 * The transaction is fenced on the worker's claim (a worker that lost the run writes nothing) and the
 * Step unique key (runId, kind, index) makes a duplicate commit fail instead of doubling rows.
 *
 * Persisted shape (the UI and API read exactly this):
 * - Trajectory: reward = R (normalised), outcome success|failure|error, terminationReason, token counts,
 *   fidelity = mean fidelity score (null without shadow execution), summary = {episodeReward, won,
 *   assistantTurns, userTurns, microSteps, toolCalls, dataSource, rolloutId, judgements, fidelity, testTime?}.
 * - Turn: role act|rehearse|environment|simulator|user; text = the raw output / message; toolCalls = parsed
 *   calls [{id,name,arguments}] (act) or the answered call {id,name,arguments} (tool roles); rehearsedResponse
 *   = the response that entered the conversation; realResponse = the real environment's response (shadow
 *   execution / environment paradigm); fidelity = {exact, keyAgreement, errorAgreement, score}; errorCode;
 *   token counts; advantage (generations).
 * - ChecklistVerdict: userTurn, turnIndex = Turn.index of the act step judged, analysis = {source, step,
 *   checklist, required, analysis?, error?}.
 */
import crypto from "node:crypto";
import type { Prisma, PrismaClient } from "@prisma/client";
import type { StepResult, TrajectoryResult } from "../engine/step";

/** Metrics shown in run lists; "higher is better" for all of them. */
export const KEY_METRICS = ["reward/mean", "fidelity/mean", "judge/pass_rate"] as const;

export class ClaimLostError extends Error {
  constructor(runId: string) {
    super(`this worker no longer holds run ${runId}`);
    this.name = "ClaimLostError";
  }
}

export function keyMetricsOf(result: StepResult): Record<string, number> {
  const out: Record<string, number> = {};
  const t = result.trajectories;
  if (t.length) out["reward/mean"] = t.reduce((s, x) => s + x.reward, 0) / t.length;
  const fid = t.filter((x) => x.fidelity);
  if (fid.length) out["fidelity/mean"] = fid.reduce((s, x) => s + x.fidelity!.meanScore, 0) / fid.length;
  if (typeof result.metrics["judge/pass_rate"] === "number") out["judge/pass_rate"] = result.metrics["judge/pass_rate"];
  return out;
}

function outcomeOf(t: TrajectoryResult): string {
  if (t.won) return "success";
  return /error|failed|exceeded|invalid/i.test(t.terminationReason) ? "error" : "failure";
}

type TurnRow = Prisma.TurnCreateManyInput;
type VerdictRow = Prisma.ChecklistVerdictCreateManyInput;

export function trajectoryRows(runId: string, result: StepResult, phase: "train" | "eval") {
  const trajectories: Prisma.TrajectoryCreateManyInput[] = [];
  const turns: TurnRow[] = [];
  const verdicts: VerdictRow[] = [];
  for (const t of result.trajectories) {
    const id = crypto.randomUUID();
    trajectories.push({
      id,
      runId,
      step: result.stepIndex,
      phase,
      instanceId: t.instanceId,
      groupId: t.groupId,
      rolloutIndex: t.rolloutIndex,
      paradigm: t.paradigm,
      reward: t.reward,
      outcome: outcomeOf(t),
      terminationReason: t.terminationReason,
      actTokens: t.tokenCounts.actResponse,
      rehearseTokens: t.tokenCounts.rehearseResponse,
      numTurns: t.turns.length,
      fidelity: t.fidelity?.meanScore ?? null,
      summary: {
        episodeReward: t.episodeReward,
        won: t.won,
        assistantTurns: t.assistantTurns,
        userTurns: t.userTurns,
        microSteps: t.microSteps,
        toolCalls: t.toolCalls,
        dataSource: t.dataSource,
        rolloutId: t.rolloutId,
        wallMs: t.wallMs,
        judgements: t.judgements,
        fidelity: t.fidelity,
        ...(t.testTime ? { testTime: t.testTime } : {}),
      } as unknown as Prisma.InputJsonValue,
    });
    // act step k of user turn u → Turn.index, so verdicts sit on the step they judge.
    const actIndex = new Map<string, number>();
    const actCount = new Map<number, number>();
    for (const turn of t.turns) {
      if (turn.role === "act") {
        const k = actCount.get(turn.userTurn) ?? 0;
        actIndex.set(`${turn.userTurn}:${k}`, turn.index);
        actCount.set(turn.userTurn, k + 1);
      }
      const call = turn.call ? { id: turn.call.id, name: turn.call.name, arguments: turn.call.argumentsJson } : undefined;
      turns.push({
        id: crypto.randomUUID(),
        trajectoryId: id,
        index: turn.index,
        role: turn.role,
        text: turn.text,
        toolCalls: turn.calls
          ? (turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.argumentsJson })) as Prisma.InputJsonValue)
          : call
            ? (call as Prisma.InputJsonValue)
            : undefined,
        rehearsedResponse: turn.rehearsed ?? null,
        realResponse: turn.real ?? null,
        fidelity: turn.fidelity ? (turn.fidelity as unknown as Prisma.InputJsonValue) : undefined,
        errorCode: turn.error?.code ?? null,
        promptTokens: turn.promptTokenCount,
        responseTokens: turn.responseTokenCount,
        advantage: turn.advantage ?? null,
      });
    }
    for (const v of t.verdicts) {
      verdicts.push({
        id: crypto.randomUUID(),
        trajectoryId: id,
        userTurn: v.userTurn,
        turnIndex: actIndex.get(`${v.userTurn}:${v.step}`) ?? null,
        itemId: v.itemId,
        question: v.question,
        weight: v.weight,
        passed: v.passed,
        callFailed: v.apiFailed === true || v.callSuccess === false,
        analysis: {
          source: v.source,
          checklist: v.checklist,
          step: v.step,
          required: v.required,
          ...(v.analysis ? { analysis: v.analysis } : {}),
          ...(v.error ? { error: v.error } : {}),
        } as unknown as Prisma.InputJsonValue,
      });
    }
  }
  return { trajectories, turns, verdicts };
}

export interface PersistStepInput {
  runId: string;
  workerId: string;
  result: StepResult;
  phase: "train" | "eval";
  startedAt: Date;
  /** Training state saved after this step (resume point). */
  statePath?: string;
  checkpoint?: { nodeName: string; statePath: string; samplerPath: string };
  /** Progress to record on the run (train steps only). */
  progress?: { step: number; total: number; etaSeconds: number | null };
}

const CHUNK = 5000;

export async function persistStep(prisma: PrismaClient, input: PersistStepInput): Promise<{ turns: number; trajectories: number }> {
  const { runId, result, phase } = input;
  const rows = trajectoryRows(runId, result, phase);
  const metrics = { ...result.metrics, ...keyMetricsOf(result) };
  const metricKeys = Object.entries(metrics).filter(([, v]) => Number.isFinite(v));
  const finishedAt = new Date();
  await prisma.$transaction(
    async (tx) => {
      const held = await tx.$queryRaw<{ id: string }[]>`
        select id from "run" where id = ${runId} and "workerId" = ${input.workerId} and status = 'running' for update`;
      if (held.length === 0) throw new ClaimLostError(runId);
      await tx.step.create({
        data: {
          runId,
          index: result.stepIndex,
          kind: phase,
          startedAt: input.startedAt,
          finishedAt,
          durationMs: finishedAt.getTime() - input.startedAt.getTime(),
          metrics: metrics as Prisma.InputJsonValue,
          statePath: input.statePath ?? null,
        },
      });
      // Eval metrics share the step axis; their keys are namespaced by the engine (val/…) or here.
      await tx.metricPoint.createMany({
        data: metricKeys.map(([key, value]) => ({
          runId,
          key: phase === "eval" && !key.startsWith("val/") ? `val/${key}` : key,
          step: result.stepIndex,
          value,
          ts: finishedAt,
        })),
        skipDuplicates: true,
      });
      for (let i = 0; i < rows.trajectories.length; i += CHUNK) await tx.trajectory.createMany({ data: rows.trajectories.slice(i, i + CHUNK) });
      for (let i = 0; i < rows.turns.length; i += CHUNK) await tx.turn.createMany({ data: rows.turns.slice(i, i + CHUNK) });
      for (let i = 0; i < rows.verdicts.length; i += CHUNK) await tx.checklistVerdict.createMany({ data: rows.verdicts.slice(i, i + CHUNK) });
      if (input.checkpoint) {
        await tx.checkpoint.create({ data: { runId, step: result.stepIndex, ...input.checkpoint } });
      }
      const run = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { latestMetrics: true, bestMetrics: true } });
      const key = keyMetricsOf(result);
      const prefixed = Object.fromEntries(Object.entries(key).map(([k, v]) => [phase === "eval" ? `val/${k}` : k, v]));
      const latest = { ...(run.latestMetrics as Record<string, number>), ...prefixed };
      const best = { ...(run.bestMetrics as Record<string, number>) };
      for (const [k, v] of Object.entries(prefixed)) if (!(k in best) || v > best[k]!) best[k] = v;
      await tx.run.update({
        where: { id: runId },
        data: {
          latestMetrics: latest,
          bestMetrics: best,
          heartbeatAt: new Date(),
          ...(input.progress
            ? { progressStep: input.progress.step, totalSteps: input.progress.total, etaSeconds: input.progress.etaSeconds }
            : {}),
        },
      });
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
  return { turns: rows.turns.length, trajectories: rows.trajectories.length };
}

/** The resume point: the last committed training step and the training state saved with it. */
export async function resumePoint(prisma: PrismaClient, runId: string): Promise<{ step: number; statePath: string | null }> {
  const last = await prisma.step.findFirst({
    where: { runId, kind: "train" },
    orderBy: { index: "desc" },
    select: { index: true, statePath: true },
  });
  return last ? { step: last.index, statePath: last.statePath } : { step: 0, statePath: null };
}
