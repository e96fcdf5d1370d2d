/**
 * Minimal database rows for the metrics / compare / reports integration tests: a run with metric
 * points, trajectories (no turns) and checkpoints, written the way worker/runner/persist.ts writes them.
 */
import crypto from "node:crypto";
import type { Prisma, PrismaClient } from "@prisma/client";

export interface SeedTrajectory {
  phase: "train" | "eval";
  step: number;
  instanceId: string;
  dataSource: string;
  outcome: "success" | "failure" | "error";
  reward?: number;
}

export interface SeedRunInput {
  name: string;
  createdById: string;
  config?: Record<string, unknown>;
  policyNode?: string;
  status?: string;
  /** key → values for steps 1..n */
  metrics?: Record<string, number[]>;
  trajectories?: SeedTrajectory[];
  checkpoints?: number[];
}

export async function seedRunRows(prisma: PrismaClient, input: SeedRunInput): Promise<string> {
  const config = input.config ?? { kind: "eval", policy: { node: input.policyNode ?? "embedded", model: "tiny-gpt" } };
  const run = await prisma.run.create({
    data: {
      name: input.name,
      kind: "eval",
      status: input.status ?? "succeeded",
      config: config as Prisma.InputJsonValue,
      configVersion: 1,
      paradigm: "rehearse",
      policyNode: input.policyNode ?? "embedded",
      totalSteps: 10,
      createdById: input.createdById,
    },
    select: { id: true },
  });
  const t0 = Date.UTC(2026, 0, 1);
  const points = Object.entries(input.metrics ?? {}).flatMap(([key, values]) =>
    values.map((value, i) => ({ runId: run.id, key, step: i + 1, value, ts: new Date(t0 + (i + 1) * 10_000) })),
  );
  if (points.length) await prisma.metricPoint.createMany({ data: points });
  const counters = new Map<string, number>();
  const trajectories = (input.trajectories ?? []).map((t) => {
    const groupId = `${t.phase}:${t.step}:${t.instanceId}`;
    const rolloutIndex = counters.get(groupId) ?? 0;
    counters.set(groupId, rolloutIndex + 1);
    return {
      id: crypto.randomUUID(),
      runId: run.id,
      step: t.step,
      phase: t.phase,
      instanceId: t.instanceId,
      groupId,
      rolloutIndex,
      paradigm: "rehearse",
      reward: t.reward ?? (t.outcome === "success" ? 1 : 0),
      outcome: t.outcome,
      terminationReason: t.outcome === "success" ? "finished" : "max turns exceeded",
      summary: { dataSource: t.dataSource, won: t.outcome === "success" } as Prisma.InputJsonValue,
    };
  });
  if (trajectories.length) await prisma.trajectory.createMany({ data: trajectories });
  for (const step of input.checkpoints ?? []) {
    await prisma.checkpoint.create({
      data: { runId: run.id, step, nodeName: input.policyNode ?? "embedded", statePath: `state/${step}`, samplerPath: `sampler/${step}` },
    });
  }
  return run.id;
}

/** k trajectories of one instance: the first `successes` succeed. */
export function trials(
  phase: "train" | "eval",
  step: number,
  instanceId: string,
  dataSource: string,
  k: number,
  successes: number,
): SeedTrajectory[] {
  return Array.from({ length: k }, (_, i) => ({ phase, step, instanceId, dataSource, outcome: i < successes ? "success" : "failure" }));
}
