/**
 * Persists one engine StepResult in ONE transaction: the Step row, its metric points, trajectories,
 * turns, checklist verdicts, an optional checkpoint, and the run's progress and denormalised metrics.
 * The transaction is fenced on the worker's claim (a worker that lost the run writes nothing) and the
 * Step unique key (runId, kind, index) makes a duplicate commit fail instead of doubling rows.
 *
 * Persisted shape (the UI and API read exactly this):
 * - Trajectory: reward = R (normalised), outcome success|failure|error (the benchmark's own verdict, decided
 *   by the engine: worker/engine/outcome.ts; lib/outcomes.ts), errorKind + errorCause for errors, terminationReason, token counts,
 *   fidelity = mean fidelity score (null without shadow execution), summary = {episodeReward, won,
 *   assistantTurns, userTurns, microSteps, toolCalls, dataSource, rolloutId, judgements, fidelity, testTime?}.
 *   Test-time evaluations add each committed rollout's private attempts as trajectories of phase "private"
 *   (outcome "private", parentId = the committed trajectory, groupId = its rollout id, rolloutIndex = the
 *   attempt, summary.privateAttempt = {index, mode, assessment, suggestion, feedbackError?, tokens}); the
 *   committed one's summary.testTime holds the record (worker/engine/testtime.ts TestTimeRecord).
 * - Turn: role act|rehearse|environment|simulator|user; text = the raw output / message; toolCalls = parsed
 *   calls [{id,name,arguments}] (act) or the answered call {id,name,arguments} (tool roles); rehearsedResponse
 *   = the response that entered the conversation; realResponse = the real environment's response (shadow
 *   execution / environment paradigm); fidelity = {score, exact, errorAgreement, outcome, divergences} (docs/FIDELITY.md); errorCode;
 *   token counts; advantage (generations).
 * - FidelityStat / FidelityDivergence: the step's fidelity per tool and its most frequent divergences
 *   (fidelity-rollup.ts), for the run page's world-model view.
 * - ChecklistVerdict: userTurn, turnIndex = Turn.index of the act step judged, analysis = {source, step,
 *   checklist, required, analysis?, error?}.
 * - An evaluation suite's step (lib/eval-suites.ts): Step.kind and Trajectory.phase `suite:<name>`, metric
 *   keys `val/<name>/…` (latest and best too); no fidelity rollup (the world-model view is the run's own world).
 */
import crypto from "node:crypto";
import type { Prisma, PrismaClient } from "@prisma/client";
import type { StepResult, TrajectoryResult } from "../engine/step";
import type { PoolClient } from "pg";
import { isDatabaseUnavailable } from "../../lib/db-errors";
import { connectionOf } from "../../lib/db";
import { whileDatabaseDown, type WaitOptions } from "./durable";
import { rollupFidelity } from "./fidelity-rollup";
import { ensureTurnPartition } from "../../lib/turn-partitions";
import { suiteKind, suiteMetricKey, suiteOfKind } from "../../lib/eval-suites";
import type { CommittedParts } from "./resume";

/** Metrics shown in run lists; "higher is better" for all of them. */
export const KEY_METRICS = ["reward/mean", "fidelity/mean", "judge/pass_rate"] as const;

export class ClaimLostError extends Error {
  constructor(runId: string) {
    super(`this worker no longer holds run ${runId}`);
    this.name = "ClaimLostError";
  }
}

/** Scores over the episodes that ran: errored ones (outcome "error") are counted apart, never scored. */
export function keyMetricsOf(result: StepResult): Record<string, number> {
  const out: Record<string, number> = {};
  const t = result.trajectories.filter((x) => x.outcome !== "error");
  if (t.length) out["reward/mean"] = t.reduce((s, x) => s + x.reward, 0) / t.length;
  const fid = t.filter((x) => x.fidelity);
  if (fid.length) out["fidelity/mean"] = fid.reduce((s, x) => s + x.fidelity!.meanScore, 0) / fid.length;
  if (typeof result.metrics["judge/pass_rate"] === "number") out["judge/pass_rate"] = result.metrics["judge/pass_rate"];
  return out;
}

type TurnRow = Prisma.TurnCreateManyInput;
type VerdictRow = Prisma.ChecklistVerdictCreateManyInput;

/** `phase`: "train", "eval", or an evaluation suite's `suite:<name>`. */
export function trajectoryRows(runId: string, result: StepResult, phase: string) {
  const trajectories: Prisma.TrajectoryCreateManyInput[] = [];
  const turns: TurnRow[] = [];
  const verdicts: VerdictRow[] = [];

  const add = (t: TrajectoryResult, rowPhase: string, link: { parentId: string; groupId: string; rolloutIndex: number; summary: object } | null): string => {
    const id = crypto.randomUUID();
    trajectories.push({
      id,
      runId,
      step: result.stepIndex,
      phase: rowPhase,
      instanceId: t.instanceId,
      groupId: link?.groupId ?? t.groupId,
      rolloutIndex: link?.rolloutIndex ?? t.rolloutIndex,
      paradigm: t.paradigm,
      reward: t.reward,
      // Decided by the episode's environment when it ended (worker/engine/outcome.ts); private attempts are scored by nobody.
      outcome: link ? "private" : t.outcome,
      errorKind: link ? null : (t.error?.kind ?? null),
      errorCause: link ? null : (t.error?.cause ?? null),
      terminationReason: t.terminationReason,
      actTokens: t.tokenCounts.actResponse,
      rehearseTokens: t.tokenCounts.rehearseResponse,
      numTurns: t.turns.length,
      fidelity: t.fidelity?.meanScore ?? null,
      parentId: link?.parentId ?? null,
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
        ...(link?.summary ?? {}),
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
        runId,
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
    return id;
  };

  for (const t of result.trajectories) {
    const committedId = add(t, phase, null);
    // Private test-time attempts: one group per committed rollout (groupId = its rollout id), the attempt as rolloutIndex.
    t.privateAttempts?.forEach((attempt, i) => {
      const record = t.testTime?.attempts[i];
      add(attempt, "private", {
        parentId: committedId,
        groupId: t.rolloutId,
        rolloutIndex: record?.index ?? i,
        summary: {
          privateAttempt: {
            index: record?.index ?? i,
            mode: t.testTime?.mode,
            assessment: record?.assessment ?? "",
            suggestion: record?.suggestion ?? "",
            ...(record?.feedbackError ? { feedbackError: record.feedbackError } : {}),
            tokens: record?.tokens ?? 0,
          },
        },
      });
    });
  }
  return { trajectories, turns, verdicts };
}

export interface PersistStepInput {
  runId: string;
  workerId: string;
  result: StepResult;
  phase: "train" | "eval";
  /** An evaluation suite's step (phase "eval"): committed as kind `suite:<name>`, charted as val/<name>/…. */
  suite?: string;
  startedAt: Date;
  /** Training state saved after this step (resume point); absent: the step saved none (schedule.stateEvery). */
  statePath?: string | null;
  /**
   * A replayed step (worker/runner/resume.ts): the step's committed rows of this kind (its step row,
   * trajectories with their turns, verdicts and private attempts, metric points, fidelity rollup) are
   * deleted in the same transaction, so the replay replaces them, never adds to them.
   */
  replace?: boolean;
  /** The step row's id (commitStep sets it, to recognise its own commit after a lost acknowledgement). */
  stepId?: string;
  checkpoint?: { nodeName: string; statePath: string; samplerPath: string };
  /** Progress to record on the run (train steps only). */
  progress?: { step: number; total: number; etaSeconds: number | null };
}

/**
 * Bulk rows (trajectories, turns, verdicts) are inserted as multi-row INSERTs: each chunk travels as ONE
 * parameter holding the rows as JSON, each row an array of its column values in table order, expanded in
 * Postgres by jsonb_array_elements (half the parse time of jsonb_to_recordset over objects, 10,000 turns:
 * ~110 vs ~220 ms, and 19 % less JSON: no keys). createMany sends ~13
 * bind parameters per row through Prisma's query compiler, which cost ~0.3 ms of worker CPU per turn
 * (10,000 turns: 4.5 s; see bench/persist.ts). The chunk goes on the transaction's own node-postgres
 * connection (lib/db.ts connectionOf) as plain JSON text, neither base64-encoded nor passed through
 * Prisma's query compiler (one 5.8 MB parameter: 290 ms through Prisma, 56 ms on the bare connection,
 * measured once under load). Without that connection (a client not made by createPrisma) the chunk goes
 * through Prisma base64-encoded, which the compiler escapes cheaper than JSON text (~12 vs ~40 ms/MB).
 */
const CHUNK_ROWS = 10_000;
/** A chunk's JSON stays under this many characters (paper-scale turns are ~9 kB each). */
const CHUNK_CHARS = 32 << 20;

/** Column name → Postgres type, in table order, for the bulk-inserted tables. */
const TRAJECTORY_COLUMNS = {
  id: "text", runId: "text", step: "int", phase: "text", instanceId: "text", groupId: "text", rolloutIndex: "int",
  paradigm: "text", reward: "float8", outcome: "text", errorKind: "text", errorCause: "text", terminationReason: "text", actTokens: "int", rehearseTokens: "int",
  numTurns: "int", fidelity: "float8", summary: "jsonb", parentId: "text",
} as const;
const TURN_COLUMNS = {
  runId: "text", id: "text", trajectoryId: "text", index: "int", role: "text", text: "text", toolCalls: "jsonb", rehearsedResponse: "text",
  realResponse: "text", fidelity: "jsonb", errorCode: "text", promptTokens: "int", responseTokens: "int", advantage: "float8",
} as const;
const VERDICT_COLUMNS = {
  id: "text", trajectoryId: "text", userTurn: "int", turnIndex: "int", itemId: "text", question: "text", weight: "float8",
  passed: "bool", callFailed: "bool", analysis: "jsonb",
} as const;

/** JSON escapes Postgres refuses: NUL (text and jsonb) and lone surrogates (no valid UTF-8). */
const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f])/i;
const NUL_OR_LONE_SURROGATE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Model output is untrusted text: replace NUL characters and lone surrogates with U+FFFD so one odd
 * generation cannot fail a step's commit. (A false positive, e.g. a literal "\\u0000" in the text, only
 * costs the slower path.)
 */
export function storableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (!UNSTORABLE_ESCAPE.test(json)) return json;
  return JSON.stringify(value, (_key, v) => (typeof v === "string" ? v.replace(NUL_OR_LONE_SURROGATE, "\uFFFD") : v));
}

/** `rows` as JSON arrays of at most `maxRows` rows and (but for a single larger row) `maxChars` characters. */
export function jsonChunks(rows: readonly object[], maxRows = CHUNK_ROWS, maxChars = CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let parts: string[] = [];
  let chars = 0;
  for (const row of rows) {
    const json = storableJson(row);
    if (parts.length && (parts.length >= maxRows || chars + json.length > maxChars)) {
      chunks.push(`[${parts.join(",")}]`);
      parts = [];
      chars = 0;
    }
    parts.push(json);
    chars += json.length + 1;
  }
  if (parts.length) chunks.push(`[${parts.join(",")}]`);
  return chunks;
}

/** Where the bulk statements go: the transaction's own connection when known, else Prisma. */
type BulkSink = { conn: PoolClient | null; tx: Prisma.TransactionClient };

/** `value AS column` for element `i` of a row array `e`: JSON null is SQL NULL for every type. */
function columnOf(i: number, type: string): string {
  return type === "jsonb" ? `nullif(e->${i}, 'null'::jsonb)` : `(e->>${i})::${type}`;
}

/** INSERT `rows` into `table` in chunks of one JSON parameter each (inside the caller's transaction). */
async function insertRows(sink: BulkSink, table: string, columns: Record<string, string>, rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  const keys = Object.keys(columns);
  const names = keys.map((c) => `"${c}"`).join(", ");
  const values = keys.map((c, i) => columnOf(i, columns[c]!)).join(", ");
  const from = sink.conn ? "$1::jsonb" : "convert_from(decode($1, 'base64'), 'UTF8')::jsonb";
  const sql = `insert into "${table}" (${names}) select ${values} from jsonb_array_elements(${from}) as e`;
  const arrays = rows.map((row) => keys.map((k) => (row as Record<string, unknown>)[k] ?? null));
  for (const chunk of jsonChunks(arrays)) {
    if (sink.conn) await sink.conn.query(sql, [chunk]);
    else await sink.tx.$executeRawUnsafe(sql, Buffer.from(chunk, "utf8").toString("base64"));
  }
}

/** The Step.kind (and trajectory phase) of a commit: "train", "eval", or an evaluation suite's `suite:<name>`. */
export function stepKindOf(input: Pick<PersistStepInput, "phase" | "suite">): string {
  return input.suite ? suiteKind(input.suite) : input.phase;
}

/** Where an evaluation's metric is charted: val/<key> for the dataset's own, val/<suite>/<key> for a suite's. */
function chartedKey(input: Pick<PersistStepInput, "phase" | "suite">, key: string): string {
  if (input.suite) return suiteMetricKey(input.suite, key);
  return input.phase === "eval" && !key.startsWith("val/") ? `val/${key}` : key;
}

export async function persistStep(prisma: PrismaClient, input: PersistStepInput): Promise<{ turns: number; trajectories: number }> {
  const { runId, result, phase } = input;
  const kind = stepKindOf(input);
  const rows = trajectoryRows(runId, result, kind);
  const metrics = { ...result.metrics, ...keyMetricsOf(result) };
  const metricKeys = Object.entries(metrics).filter(([, v]) => Number.isFinite(v));
  const finishedAt = new Date();
  // The run's turn partition, in its own short statement: creating it locks the turn table briefly,
  // which must not last as long as the commit (a no-op once it exists).
  await ensureTurnPartition(prisma, runId);
  await prisma.$transaction(
    async (tx) => {
      const held = await tx.$queryRaw<{ id: string; pid: number }[]>`
        select id, pg_backend_pid() as pid from "run" where id = ${runId} and "workerId" = ${input.workerId} and status = 'running' for update`;
      if (held.length === 0) throw new ClaimLostError(runId);
      const sink: BulkSink = { conn: connectionOf(prisma, Number(held[0]!.pid)), tx };
      const replaced = input.replace ? await deleteStepRows(tx, runId, kind, result.stepIndex, (k) => chartedKey(input, k)) : null;
      await tx.step.create({
        data: {
          ...(input.stepId ? { id: input.stepId } : {}),
          runId,
          index: result.stepIndex,
          kind,
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
          key: chartedKey(input, key),
          step: result.stepIndex,
          value,
          ts: finishedAt,
        })),
        skipDuplicates: true,
      });
      await insertRows(sink, "trajectory", TRAJECTORY_COLUMNS, rows.trajectories);
      await insertRows(sink, "turn", TURN_COLUMNS, rows.turns);
      await insertRows(sink, "checklist_verdict", VERDICT_COLUMNS, rows.verdicts);
      // The world-model view reads these per-step rollups, never the run's turns.
      if (!input.suite) await rollupFidelity(tx, runId, phase, result.stepIndex);
      if (input.checkpoint) {
        await tx.checkpoint.create({ data: { runId, step: result.stepIndex, ...input.checkpoint } });
      }
      const run = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { latestMetrics: true, bestMetrics: true } });
      const key = keyMetricsOf(result);
      const prefixed = Object.fromEntries(Object.entries(key).map(([k, v]) => [chartedKey(input, k), v]));
      // How many of the step's episodes errored, for the runs list (latest only: "best" means nothing here).
      const errored = { [chartedKey(input, "episodes/errored")]: result.trajectories.filter((x) => x.outcome === "error").length, [chartedKey(input, "episodes/total")]: result.trajectories.length };
      const latest = { ...(run.latestMetrics as Record<string, number>), ...prefixed, ...errored };
      const best = { ...(run.bestMetrics as Record<string, number>) };
      for (const [k, v] of Object.entries(prefixed)) if (!(k in best) || v > best[k]!) best[k] = v;
      // A replaced step's values may have been the best: the best of what remains (its points are replaced).
      if (replaced) {
        const keys = [...new Set([...replaced, ...Object.keys(prefixed)])];
        const maxima = await tx.metricPoint.groupBy({ by: ["key"], where: { runId, key: { in: keys } }, _max: { value: true } });
        for (const k of keys) delete best[k];
        for (const m of maxima) if (m._max.value !== null) best[m.key] = m._max.value;
      }
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

/**
 * Deletes what a step of `kind` committed (a replay replaces it, worker/runner/resume.ts): its step row,
 * its trajectories (their turns, verdicts and private attempts go with them), its metric points (the keys
 * its row recorded) and its fidelity rollup (also redone by the commit). Returns the charted key metrics
 * it had, whose best values the caller recomputes.
 */
async function deleteStepRows(tx: Prisma.TransactionClient, runId: string, kind: string, step: number, charted: (key: string) => string): Promise<string[]> {
  const old = await tx.step.findUnique({ where: { runId_kind_index: { runId, kind, index: step } }, select: { id: true, metrics: true } });
  const keys = old ? Object.keys((old.metrics ?? {}) as Record<string, unknown>).map(charted) : [];
  if (old) await tx.step.delete({ where: { id: old.id } });
  if (keys.length) await tx.metricPoint.deleteMany({ where: { runId, step, key: { in: keys } } });
  // Private attempts (phase "private") belong to their committed trajectory and are deleted with it.
  await tx.trajectory.deleteMany({ where: { runId, phase: kind, step } });
  await tx.fidelityStat.deleteMany({ where: { runId, phase: kind, step } });
  await tx.fidelityDivergence.deleteMany({ where: { runId, phase: kind, step } });
  return keys.filter((k) => (KEY_METRICS as readonly string[]).some((m) => k === m || k.endsWith(`/${m}`)));
}

/**
 * `persistStep` through a database outage: waits for the database and commits then. When the
 * connection broke while the commit was in flight, the commit may have gone through; a retry then
 * meets the step's unique key, and finding the step row with the id this commit gave it (under this
 * worker's claim) means it is done. (A replayed step's retry replaces its own first commit.)
 */
export async function commitStep(prisma: PrismaClient, input: PersistStepInput, wait: WaitOptions = {}): Promise<{ turns: number; trajectories: number }> {
  let interrupted = false;
  // Its own row id: a replayed step's key exists before its commit, the id only after it.
  const own = { ...input, stepId: input.stepId ?? crypto.randomUUID() };
  return whileDatabaseDown(async () => {
    try {
      return await persistStep(prisma, own);
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        interrupted = true;
        throw err;
      }
      if (interrupted && !(err instanceof ClaimLostError)) {
        const committed = await prisma.step.findUnique({ where: { id: own.stepId }, select: { id: true } });
        if (committed) {
          const rows = trajectoryRows(input.runId, input.result, stepKindOf(input));
          return { turns: rows.turns.length, trajectories: rows.trajectories.length };
        }
      }
      throw err;
    }
  }, wait);
}

/** Everything a training run has committed, by part (the input of `planResume`, worker/runner/resume.ts). */
export async function committedParts(prisma: PrismaClient, runId: string): Promise<CommittedParts> {
  const [steps, checkpoints] = await Promise.all([
    prisma.step.findMany({ where: { runId }, orderBy: { index: "asc" }, select: { kind: true, index: true, statePath: true } }),
    prisma.checkpoint.findMany({ where: { runId }, orderBy: { step: "asc" }, select: { step: true } }),
  ]);
  const suites: Record<string, number[]> = {};
  for (const s of steps) {
    const suite = suiteOfKind(s.kind);
    if (suite !== null) (suites[suite] ??= []).push(s.index);
  }
  return {
    train: steps.filter((s) => s.kind === "train").map((s) => ({ step: s.index, statePath: s.statePath })),
    eval: steps.filter((s) => s.kind === "eval").map((s) => s.index),
    checkpoint: checkpoints.map((c) => c.step),
    suites,
  };
}

/**
 * A checkpoint made on its own, for a committed training step that lacks one. Fenced on the claim like
 * a step; an existing checkpoint of the step is kept (its unique key), so a repeat changes nothing.
 */
export async function persistCheckpoint(
  prisma: PrismaClient,
  input: { runId: string; workerId: string; step: number; nodeName: string; statePath: string; samplerPath: string },
): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const held = await tx.$queryRaw<{ id: string }[]>`
      select id from "run" where id = ${input.runId} and "workerId" = ${input.workerId} and status = 'running' for update`;
    if (held.length === 0) throw new ClaimLostError(input.runId);
    await tx.checkpoint.createMany({
      data: [{ runId: input.runId, step: input.step, nodeName: input.nodeName, statePath: input.statePath, samplerPath: input.samplerPath }],
      skipDuplicates: true,
    });
  });
}
