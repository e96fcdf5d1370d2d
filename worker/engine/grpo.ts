/**
 * Role-wise GRPO advantages (envace-method.md §4.1) and training rows.
 *
 * Group key = `<instanceGroupId>:<role>`: every generation of that role across the K rollouts of one
 * instance forms one group (a trajectory with more calls contributes more rows). Advantage =
 * score − group mean (group of one: mean 0, std 1), optionally divided by (unbiased std + eps).
 */
import type { Role, TrainingDatum } from "./io";

export const STD_EPS = 1e-6;

export interface ScoredRow {
  /** Explicit instance group id (shared by the K rollouts of one instance in one step). */
  instanceGroupId: string;
  /** Trajectory id (used only when the baseline is not role-wise). */
  trajectoryId: string;
  role: Role;
  /** Row score: normalised episode reward minus the invalid-action penalty. */
  score: number;
}

export interface AdvantageOptions {
  roleWise: boolean;
  normByStd: boolean;
  eps?: number;
}

export interface GroupStats {
  groupId: string;
  size: number;
  mean: number;
  std: number;
}

export function roleGroupId(instanceGroupId: string, role: Role): string {
  return `${instanceGroupId}:${role}`;
}

/** Mean and unbiased std with the reference's conventions for a group of one (mean 0, std 1). */
export function groupStats(scores: number[]): { mean: number; std: number } {
  const n = scores.length;
  if (n <= 1) return { mean: 0, std: 1 };
  const mean = scores.reduce((a, b) => a + b, 0) / n;
  const variance = scores.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { mean, std: Math.sqrt(variance) };
}

/**
 * One advantage per row, in row order, plus the statistics of every group.
 * Not role-wise: rows are first averaged per trajectory, trajectories of an instance group share one
 * baseline, and each row gets its trajectory's advantage (reference `group_by_agent_id=False`).
 */
export function computeAdvantages(rows: ScoredRow[], options: AdvantageOptions): { advantages: number[]; groups: GroupStats[] } {
  const eps = options.eps ?? STD_EPS;
  const finish = (score: number, s: { mean: number; std: number }) =>
    options.normByStd ? (score - s.mean) / (s.std + eps) : score - s.mean;

  if (options.roleWise) {
    const byGroup = new Map<string, number[]>();
    for (const r of rows) {
      const key = roleGroupId(r.instanceGroupId, r.role);
      const list = byGroup.get(key);
      if (list) list.push(r.score);
      else byGroup.set(key, [r.score]);
    }
    const stats = new Map([...byGroup].map(([k, scores]) => [k, groupStats(scores)]));
    return {
      advantages: rows.map((r) => finish(r.score, stats.get(roleGroupId(r.instanceGroupId, r.role))!)),
      groups: [...byGroup].map(([groupId, scores]) => ({ groupId, size: scores.length, ...stats.get(groupId)! })),
    };
  }

  // Trajectory-level baseline shared by both roles.
  const trajScores = new Map<string, { group: string; sum: number; n: number }>();
  for (const r of rows) {
    const t = trajScores.get(r.trajectoryId) ?? { group: r.instanceGroupId, sum: 0, n: 0 };
    t.sum += r.score;
    t.n++;
    trajScores.set(r.trajectoryId, t);
  }
  const byGroup = new Map<string, number[]>();
  for (const t of trajScores.values()) {
    const list = byGroup.get(t.group) ?? [];
    list.push(t.sum / t.n);
    byGroup.set(t.group, list);
  }
  const stats = new Map([...byGroup].map(([k, scores]) => [k, groupStats(scores)]));
  return {
    advantages: rows.map((r) => {
      const t = trajScores.get(r.trajectoryId)!;
      return finish(t.sum / t.n, stats.get(r.instanceGroupId)!);
    }),
    groups: [...byGroup].map(([groupId, scores]) => ({ groupId, size: scores.length, ...stats.get(groupId)! })),
  };
}

export interface GenerationRow extends ScoredRow {
  promptTokens: number[];
  responseTokens: number[];
  logprobs: number[];
}

/** Per-token training rows: the row's scalar advantage repeated over its response tokens. */
export function buildTrainingData(rows: GenerationRow[], advantages: number[]): TrainingDatum[] {
  const data: TrainingDatum[] = [];
  rows.forEach((r, i) => {
    if (r.responseTokens.length === 0) return;
    data.push({
      promptTokens: r.promptTokens,
      responseTokens: r.responseTokens,
      logprobs: r.logprobs,
      advantages: new Array(r.responseTokens.length).fill(advantages[i]),
      role: r.role,
    });
  });
  return data;
}
