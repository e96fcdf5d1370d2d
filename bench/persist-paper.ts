/**
 * Storage at the paper's shape (`npm run bench:persist`): how many bytes ONE paper-scale training step
 * leaves in PostgreSQL, how long its commit takes, and what that projects to for a 470-step run and for
 * 20 such runs; beside it the same step stored without compression and with Postgres' default TOAST
 * threshold, and the step's share of a gzip JSON Lines archive (lib/turn-archive.ts).
 *
 * The step (env BENCH_GROUPS × BENCH_K rollouts, default 64 × 4 as issue 25 states the paper shape; the
 * `paper` preset samples 16 × 4, a quarter of it): per rollout 3 user turns, each 10 tool calls (an act
 * generation with thinking and a <tool_call>, then the rehearsed tool response with thinking) and a final
 * act reply: 63 generations of BENCH_REPLY_TOKENS (default 2,000, Qwen3-length with thinking on, ≈ 4
 * characters per token) and 45 checklist verdicts (3 judged act steps × 5 items per user turn, each with
 * the judge's four-part analysis). Prompts are not stored (only their token counts), so 12k-token inputs
 * cost nothing here.
 *
 * Texts are windows of the repository's own English prose (docs/ARCHITECTURE.md, docs/FIDELITY.md,
 * docs/GPU.md, README.md) at offsets from a seeded generator: real text compresses like real text, where
 * repeated or random filler would flatter or punish the compression. The figure is deterministic for a
 * given checkout (the same rows every run); timings depend on the machine and its load, printed beside.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { PrismaClient } from "@prisma/client";
import { migrate, repoRoot, startEmbeddedPostgres } from "../scripts/lib/database";
import { createPrisma } from "../lib/db";
import { compareResponses, summarizeFidelity } from "../worker/engine/fidelity";
import type { ItemVerdict } from "../worker/engine/reward";
import type { StepResult, TrajectoryResult, TurnResult } from "../worker/engine/step";
import { persistStep } from "../worker/runner/persist";
import { postgresCpuMs } from "./persist";
import { ensureTurnPartition } from "../lib/turn-partitions";
import { archiveRunTurns, directoryStore } from "../lib/turn-archive";
import { mulberry32 } from "../lib/random";

export interface PaperShape {
  groups: number;
  k: number;
  userTurns: number;
  callsPerUserTurn: number;
  replyTokens: number;
  judgedStepsPerUserTurn: number;
  checklistItems: number;
}

export const PAPER_SHAPE: PaperShape = { groups: 64, k: 4, userTurns: 3, callsPerUserTurn: 10, replyTokens: 2000, judgedStepsPerUserTurn: 3, checklistItems: 5 };
const CHARS_PER_TOKEN = 4;

/** A seeded generator: the same step on every run. */
const rng = mulberry32;

let corpusText: string | null = null;
function corpus(): string {
  if (corpusText === null) {
    const files = ["docs/ARCHITECTURE.md", "docs/FIDELITY.md", "docs/GPU.md", "README.md"];
    corpusText = files.map((f) => fs.readFileSync(path.join(repoRoot, f), "utf8")).join("\n\n").replace(/\s+/g, " ");
  }
  return corpusText;
}

/** `chars` characters of real prose from a seeded offset (wrapping around the corpus). */
function prose(next: () => number, chars: number): string {
  const c = corpus();
  let out = "";
  while (out.length < chars) {
    const start = Math.floor(next() * c.length);
    out += c.slice(start, start + Math.min(chars - out.length, 1200 + Math.floor(next() * 1800))) + " ";
  }
  return out.slice(0, chars);
}

const TOOLS = ["get_order_details", "find_user_id_by_email", "cancel_pending_order", "modify_pending_order_address", "get_product_details", "return_delivered_order_items"];

/** Token arrays are dropped by persistStep (only counts are stored); share one per length. */
const shared = new Map<number, number[]>();
const ids = (n: number) => {
  let a = shared.get(n);
  if (!a) shared.set(n, (a = new Array<number>(n).fill(7)));
  return a;
};

function paperTrajectory(shape: PaperShape, stepIndex: number, group: number, rollout: number): TrajectoryResult {
  const next = rng(stepIndex * 1_000_003 + group * 1009 + rollout);
  const replyChars = shape.replyTokens * CHARS_PER_TOKEN;
  const turns: TurnResult[] = [];
  const verdicts: ItemVerdict[] = [];
  const fidelities = [];
  let microStep = 0;
  let context = 4000;
  for (let u = 0; u < shape.userTurns; u++) {
    const base = () => ({ index: turns.length, userTurn: u, microStep, valid: true });
    turns.push({ ...base(), role: "user", text: prose(next, 300 + Math.floor(next() * 300)), promptTokens: [], tokens: [], logprobs: [], promptTokenCount: 0, responseTokenCount: 0 });
    const actIndexes: number[] = [];
    for (let c = 0; c < shape.callsPerUserTurn; c++) {
      const tool = TOOLS[Math.floor(next() * TOOLS.length)]!;
      const args = { order_id: `#W${Math.floor(next() * 1e7)}`, reason: prose(next, 40).trim() };
      const call = { id: `call_${group}_${rollout}_${turns.length}`, name: tool, argumentsJson: JSON.stringify(args) };
      microStep++;
      const actCall = `<tool_call>\n${JSON.stringify({ name: tool, arguments: args })}\n</tool_call>`;
      const act = `<think>${prose(next, replyChars - actCall.length - 20)}</think>\n\n${actCall}`;
      context = Math.min(context + 2200, 12_000);
      actIndexes.push(turns.length);
      turns.push({ ...base(), role: "act", text: act, calls: [call], finishReason: "stop", promptTokens: ids(context), tokens: ids(shape.replyTokens), logprobs: [], promptTokenCount: context, responseTokenCount: shape.replyTokens, score: 0.5, advantage: (rollout - 1.5) / 3, advantageGroupId: `g${group}:act` });
      const record = { order_id: args.order_id, status: next() < 0.5 ? "delivered" : "pending", items: [{ item_id: String(Math.floor(next() * 1e10)), name: prose(next, 30).trim(), price: Math.round(next() * 50_000) / 100 }], note: prose(next, 200).trim() };
      const realRecord = next() < 0.7 ? record : { ...record, status: "processed" };
      const rehearsed = JSON.stringify(record);
      const real = JSON.stringify(realRecord);
      const fidelity = compareResponses(rehearsed, real);
      fidelities.push(fidelity);
      const result = `<execution_result>\n${JSON.stringify(record, null, 1)}\n</execution_result>`;
      const rehearse = `<think>${prose(next, Math.max(200, replyChars - result.length - 20))}</think>\n${result}`;
      turns.push({ ...base(), role: "rehearse", text: rehearse, call, rehearsed, real, fidelity, finishReason: "stop", promptTokens: ids(context), tokens: ids(shape.replyTokens), logprobs: [], promptTokenCount: context, responseTokenCount: shape.replyTokens, score: 0.5, advantage: (rollout - 1.5) / 4, advantageGroupId: `g${group}:rehearse` });
    }
    microStep++;
    actIndexes.push(turns.length);
    turns.push({ ...base(), role: "act", text: `<think>${prose(next, replyChars - 600)}</think>\n\n${prose(next, 560)}`, finishReason: "stop", promptTokens: ids(context), tokens: ids(shape.replyTokens), logprobs: [], promptTokenCount: context, responseTokenCount: shape.replyTokens, score: 0.5, advantage: (rollout - 1.5) / 3, advantageGroupId: `g${group}:act` });
    // The judge reads the last judgedStepsPerUserTurn act steps of the user turn against each checklist item.
    const steps = actIndexes.length;
    for (let j = 0; j < shape.judgedStepsPerUserTurn; j++) {
      const step = steps - shape.judgedStepsPerUserTurn + j;
      for (let item = 0; item < shape.checklistItems; item++) {
        verdicts.push({
          checklist: 0, userTurn: u, step, itemId: `C${item}`, question: prose(next, 120).trim(), weight: 1 / shape.checklistItems, required: item === 0, passed: next() < 0.6, source: "judge", callSuccess: true,
          analysis: {
            high_level_understanding_of_the_question: prose(next, 300).trim(),
            analysis_of_if_focus_on: prose(next, 300).trim(),
            analysis_of_pass_condition: prose(next, 500).trim(),
            analysis_of_failure_examples: prose(next, 300).trim(),
          },
        });
      }
    }
  }
  const actTokens = turns.filter((t) => t.role === "act").reduce((n, t) => n + t.responseTokenCount, 0);
  const rehearseTokens = turns.filter((t) => t.role === "rehearse").reduce((n, t) => n + t.responseTokenCount, 0);
  const reward = rollout / 4;
  return {
    instanceId: `cm2-${group}`, dataSource: "dataset:cm2", groupId: `step${stepIndex}-g${group}`, rolloutIndex: rollout, rolloutId: crypto.randomUUID(), paradigm: "rehearse",
    reward, episodeReward: reward * shape.userTurns, won: reward > 0, outcome: reward >= 1 ? "success" : "failure", success: reward >= 1, terminationReason: "finished",
    tokenCounts: { prompt: context, response: actTokens + rehearseTokens, actResponse: actTokens, rehearseResponse: rehearseTokens },
    assistantTurns: turns.filter((t) => t.role === "act").length, userTurns: shape.userTurns, microSteps: microStep, toolCalls: shape.userTurns * shape.callsPerUserTurn,
    fidelity: summarizeFidelity(fidelities), turns, verdicts,
    judgements: Array.from({ length: shape.userTurns }, (_, u) => ({ userTurnIndex: u, reward, checklistScores: [reward], stop: false, judgeCalls: shape.judgedStepsPerUserTurn * shape.checklistItems, judgeFailures: 0 })),
    messages: [], wallMs: 300_000,
  };
}

export function paperStep(stepIndex: number, shape: PaperShape = PAPER_SHAPE): StepResult {
  const trajectories: TrajectoryResult[] = [];
  for (let g = 0; g < shape.groups; g++) for (let r = 0; r < shape.k; r++) trajectories.push(paperTrajectory(shape, stepIndex, g, r));
  return { kind: "train", stepIndex, trajectories, metrics: { "reward/mean": 0.375, "timing_s/step": 300 } };
}

/** Bytes of a step's stored texts before compression (what the columns hold as UTF-8). */
export function rawBytes(step: StepResult): number {
  let n = 0;
  for (const t of step.trajectories) {
    for (const x of t.turns) n += Buffer.byteLength(x.text) + (x.rehearsed ? Buffer.byteLength(x.rehearsed) : 0) + (x.real ? Buffer.byteLength(x.real) : 0);
    for (const v of t.verdicts) n += Buffer.byteLength(JSON.stringify(v.analysis ?? {})) + Buffer.byteLength(v.question);
  }
  return n;
}

interface TableBytes {
  total: number;
  heap: number;
  toast: number;
  indexes: number;
}

/** Sizes of every table in the schema (partitions counted once, under their own names). */
async function sizes(prisma: PrismaClient): Promise<Map<string, TableBytes>> {
  const rows = await prisma.$queryRawUnsafe<{ name: string; total: bigint; heap: bigint; toast: bigint; indexes: bigint }[]>(`
    select c.relname as name, pg_total_relation_size(c.oid) as total, pg_relation_size(c.oid) as heap,
      coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) as toast, pg_indexes_size(c.oid) as indexes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'`);
  return new Map(rows.map((r) => [r.name, { total: Number(r.total), heap: Number(r.heap), toast: Number(r.toast), indexes: Number(r.indexes) }]));
}

function delta(after: Map<string, TableBytes>, before: Map<string, TableBytes>, pick: (name: string) => boolean): TableBytes {
  const out = { total: 0, heap: 0, toast: 0, indexes: 0 };
  for (const [name, a] of after) {
    if (!pick(name)) continue;
    const b = before.get(name) ?? { total: 0, heap: 0, toast: 0, indexes: 0 };
    out.total += a.total - b.total;
    out.heap += a.heap - b.heap;
    out.toast += a.toast - b.toast;
    out.indexes += a.indexes - b.indexes;
  }
  return out;
}

async function newRun(prisma: PrismaClient, userId: string, name: string): Promise<string> {
  const run = await prisma.run.create({
    data: { name, kind: "train", status: "running", workerId: "bench", heartbeatAt: new Date(), config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "tinker", tags: [], totalSteps: 470, createdById: userId, startedAt: new Date() },
    select: { id: true },
  });
  return run.id;
}

async function partitionOf(prisma: PrismaClient, runId: string): Promise<string> {
  const [{ part }] = await prisma.$queryRaw<{ part: string }[]>`select turn_partition_name(${runId}) as part`;
  return part;
}

const GB = 1e9;

export async function runPaperPersistBench(opts: { shape?: PaperShape; log?: (line: string) => void } = {}) {
  const shape = opts.shape ?? PAPER_SHAPE;
  const log = opts.log ?? (() => {});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-bench-pg-"));
  fs.chmodSync(dir, 0o777);
  const port = 56000 + Math.floor(Math.random() * 4000);
  const db = await startEmbeddedPostgres({ dataDir: path.join(dir, "data"), port, database: "envace_bench", throwaway: true });
  const prisma = createPrisma(db.url);
  try {
    await migrate(db.url);
    const user = await prisma.user.create({ data: { id: crypto.randomUUID(), name: "Bench", email: `bench-${crypto.randomUUID()}@example.test` } });
    const commit = (runId: string, step: StepResult) =>
      persistStep(prisma, { runId, workerId: "bench", result: step, phase: "train", startedAt: new Date(), progress: { step: step.stepIndex, total: 470, etaSeconds: null } });

    // The product's storage: step 1 warms up, step 2 is measured (time and bytes).
    const runId = await newRun(prisma, user.id, "paper-storage");
    const step1 = paperStep(1, shape);
    const c0 = performance.now();
    await commit(runId, step1);
    const coldS = (performance.now() - c0) / 1000;
    const step2 = paperStep(2, shape);
    const raw = rawBytes(step2);
    const turns = step2.trajectories.reduce((n, t) => n + t.turns.length, 0);
    const verdicts = step2.trajectories.reduce((n, t) => n + t.verdicts.length, 0);
    const before = await sizes(prisma);
    const pg0 = postgresCpuMs(path.join(dir, "data"));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await commit(runId, step2);
    const commitS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const pg1 = postgresCpuMs(path.join(dir, "data"));
    const after = await sizes(prisma);
    const part = await partitionOf(prisma, runId);
    const all = delta(after, before, () => true);
    const turn = delta(after, before, (n) => n === part);
    const trajectory = delta(after, before, (n) => n === "trajectory");
    const verdict = delta(after, before, (n) => n === "checklist_verdict");

    // The same step stored uncompressed (out of line, no compression) and with the default 2 kB threshold.
    const variant = async (name: string, alter: (part: string) => string[]) => {
      const id = await newRun(prisma, user.id, name);
      await ensureTurnPartition(prisma, id);
      const p = await partitionOf(prisma, id);
      for (const sql of alter(p)) await prisma.$executeRawUnsafe(sql);
      const b = await sizes(prisma);
      await commit(id, paperStep(2, shape));
      return delta(await sizes(prisma), b, (n) => n === p).total;
    };
    const uncompressed = await variant("paper-uncompressed", (p) => ["text", "toolCalls", "rehearsedResponse", "realResponse", "fidelity"].map((c) => `alter table "${p}" alter column "${c}" set storage external`));
    const smallTarget = await variant("paper-toast-target-256", (p) => [`alter table "${p}" set (toast_tuple_target = 256)`]);

    // The archive of the measured run (2 steps): its bytes per step, and how long archiving takes.
    await prisma.run.update({ where: { id: runId }, data: { status: "succeeded", finishedAt: new Date(), workerId: null } });
    const a0 = performance.now();
    const archive = await archiveRunTurns(prisma, runId, { store: directoryStore(path.join(dir, "archive")) });
    const archiveS = (performance.now() - a0) / 1000;
    const archivePerStep = archive.bytes / 2;

    const [{ code }] = await prisma.$queryRaw<{ code: string }[]>`select attcompression::text as code from pg_attribute where attrelid = 'turn'::regclass and attname = 'text'`;
    const method = code === "l" ? "lz4" : "pglz";
    const load = os.loadavg()[0]!;
    const evalEquivalents = 47 * 0.25; // evalEvery 10 over 470 steps: 47 passes of 64 rollouts ≈ a quarter step each at 256 rollouts
    const perRun = all.total * 470;
    const result = {
      bench: "persist_paper",
      compression: method,
      rollouts: shape.groups * shape.k,
      turns,
      verdicts,
      reply_tokens: shape.replyTokens,
      raw_text_mb: Number((raw / 1e6).toFixed(1)),
      bytes_per_step: all.total,
      turn_bytes_per_step: turn.total,
      turn_heap_bytes: turn.heap,
      turn_toast_bytes: turn.toast,
      turn_index_bytes: turn.indexes,
      trajectory_bytes_per_step: trajectory.total,
      verdict_bytes_per_step: verdict.total,
      compression_ratio: Number((uncompressed / turn.total).toFixed(2)),
      uncompressed_turn_bytes_per_step: uncompressed,
      toast_target_256_turn_bytes_per_step: smallTarget,
      archive_bytes_per_step: archivePerStep,
      run_470_steps_gb: Number((perRun / GB).toFixed(1)),
      runs_20_tb: Number(((perRun * 20) / 1e12).toFixed(2)),
      run_470_archive_gb: Number(((archivePerStep * 470) / GB).toFixed(1)),
      commit_s: Number(commitS.toFixed(2)),
      cold_commit_s: Number(coldS.toFixed(2)),
      worker_cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      postgres_cpu_ms: pg0 !== null && pg1 !== null ? pg1 - pg0 : null,
      archive_s: Number(archiveS.toFixed(1)),
      load_1m: Number(load.toFixed(2)),
    };
    const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
    log(
      `persist (paper shape): ${result.rollouts} rollouts, ${turns} turns (${result.raw_text_mb} MB text, ${shape.replyTokens}-token generations), ${verdicts} verdicts per step\n` +
        `  bytes per step: ${mb(all.total)} in all — turn ${mb(turn.total)} (heap ${mb(turn.heap)}, TOAST ${mb(turn.toast)}, indexes ${mb(turn.indexes)}), ` +
        `trajectory ${mb(trajectory.total)}, checklist_verdict ${mb(verdict.total)}\n` +
        `  turn storage: ${mb(turn.total)} compressed (${method}) vs ${mb(uncompressed)} uncompressed (×${result.compression_ratio}); ${mb(smallTarget)} with toast_tuple_target 256\n` +
        `  projection: a 470-step run ${result.run_470_steps_gb} GB in Postgres (+ ~${evalEquivalents.toFixed(0)} step-equivalents of evaluation passes at evalEvery 10), ` +
        `20 runs ${result.runs_20_tb} TB; archived, its turns are ${mb(archivePerStep)} per step (${result.run_470_archive_gb} GB per run, gzip JSON Lines)\n` +
        `  commit: ${commitS.toFixed(2)} s wall (first: ${coldS.toFixed(2)} s), CPU: worker ${result.worker_cpu_ms} ms + Postgres ${result.postgres_cpu_ms ?? "?"} ms; archiving 2 steps took ${archiveS.toFixed(1)} s; load average ${load.toFixed(2)} on ${os.cpus().length} cores`,
    );
    return result;
  } finally {
    await prisma.$disconnect().catch(() => {});
    await db.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
  const shape = { ...PAPER_SHAPE, groups: env("BENCH_GROUPS", PAPER_SHAPE.groups), k: env("BENCH_K", PAPER_SHAPE.k), replyTokens: env("BENCH_REPLY_TOKENS", PAPER_SHAPE.replyTokens) };
  runPaperPersistBench({ shape, log: (l) => console.log(l) })
    .then((r) => console.log(JSON.stringify(r)))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
