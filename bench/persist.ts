/**
 * Persistence benchmark: how fast ONE step commit (worker/runner/persist.ts persistStep, one
 * transaction) writes a large engine StepResult into real PostgreSQL.
 *
 * A throwaway embedded Postgres (temp dir, migrated with the real migrations) receives a synthetic
 * but realistically sized step: 64 trajectories (16 instances × K 4) totalling 10,000 turns by
 * default, act outputs with <think> and <tool_call> blocks, rehearse outputs with
 * <execution_result>, rehearsed vs real responses with their fidelity under shadow execution, two
 * checklist verdicts per user turn. The figure is the wall time of the second full-size commit (the
 * first is reported beside it: it pays one-off warm-up costs). Target: 10,000 turns in under 1 s.
 *
 * Run alone with `npx tsx bench/persist.ts`; `npm run bench:rollout` includes it in its final line.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { PrismaClient } from "@prisma/client";
import { migrate, startEmbeddedPostgres } from "../scripts/lib/database";
import { createPrisma } from "../lib/db";
import { compareResponses, summarizeFidelity } from "../worker/engine/fidelity";
import type { ItemVerdict, VerdictAnalysis } from "../worker/engine/reward";
import type { StepResult, TrajectoryResult, TurnResult } from "../worker/engine/step";
import { persistStep } from "../worker/runner/persist";

// ---------------------------------------------------------------------------------------------
// A synthetic, realistically sized step
// ---------------------------------------------------------------------------------------------

interface CallScenario {
  user: string;
  think: string;
  tool: string;
  args: Record<string, unknown>;
  rehearsed: unknown;
  real: unknown;
  reply: string;
}

const SCENARIOS: CallScenario[] = [
  {
    user: "Hi! I'd like to return the hiking boots from my last order. My email is noa.kim@example.com.",
    think: "The user wants a return. First I need their user id from the email, then the order details to check eligibility.",
    tool: "find_user_id_by_email",
    args: { email: "noa.kim@example.com" },
    rehearsed: { user_id: "noa_kim_4813" },
    real: { user_id: "noa_kim_4813" },
    reply: "I found your account. The boots (item 6546364613) are eligible for return to your original card.",
  },
  {
    user: "Can you tell me the status of order #W2378156 and what is in it?",
    think: "Fetch the order details; its status and items decide what is possible next.",
    tool: "get_order_details",
    args: { order_id: "#W2378156" },
    rehearsed: {
      order_id: "#W2378156",
      status: "delivered",
      items: [{ item_id: "6546364613", name: "Hiking Boots", price: 210.52, options: { size: "10", material: "leather" } }],
      payment: { method: "credit_card_4421", amount: 210.52 },
    },
    real: {
      order_id: "#W2378156",
      status: "delivered",
      items: [{ item_id: "6546364613", name: "Hiking Boots", price: 239.99, options: { size: "10", material: "leather" } }],
      payment: { method: "credit_card_4421", amount: 239.99 },
      fulfillments: [{ tracking_id: ["568199023"], item_ids: ["6546364613"] }],
    },
    reply: "Order #W2378156 was delivered. It contains one pair of leather hiking boots, size 10 ($239.99).",
  },
  {
    user: "Please cancel my pending order #W4817420, I ordered it by mistake.",
    think: "Cancellation needs the order to be pending and an allowed reason; 'ordered by mistake' is one of them.",
    tool: "cancel_pending_order",
    args: { order_id: "#W4817420", reason: "ordered by mistake" },
    rehearsed: { order_id: "#W4817420", status: "cancelled", refund: { amount: 54.04, method: "paypal_2188" } },
    real: { order_id: "#W4817420", status: "cancelled", refund: { amount: 54.04, method: "paypal_2188" } },
    reply: "Done: order #W4817420 is cancelled and $54.04 goes back to your PayPal account within 5–7 business days.",
  },
  {
    user: "Change the shipping address of order #W9911714 to 44 Elm St, Austin TX 78701.",
    think: "Address changes are only allowed on pending orders; the tool validates that, so I call it directly.",
    tool: "modify_pending_order_address",
    args: { order_id: "#W9911714", address1: "44 Elm St", city: "Austin", state: "TX", zip: "78701", country: "USA" },
    rehearsed: { order_id: "#W9911714", status: "pending", address: { address1: "44 Elm St", city: "Austin", state: "TX", zip: "78701" } },
    real: { error_tool_call: { code: "NON_PENDING_ORDER", message: "Non-pending order cannot be modified" } },
    reply: "I'm sorry, that order has already shipped, so its address can no longer be changed.",
  },
];

/** A judge's analysis as the LLM judge returns it (four short paragraphs). */
function judgeAnalysis(subject: string): VerdictAnalysis {
  return {
    high_level_understanding_of_the_question: `The item asks whether ${subject} does what the user requested in this turn.`,
    analysis_of_if_focus_on: `The focus is on ${subject}; it is present in the step under review and can be judged.`,
    analysis_of_pass_condition: `The pass condition requires ${subject} to use the identifiers the user gave and to report the result truthfully; it does.`,
    analysis_of_failure_examples: "None of the failure examples (wrong id, invented values, missing confirmation) apply here.",
  };
}

/**
 * Prompt token ids, shared between turns of equal prompt length: a real step holds one array per
 * generation, but 10,000 private copies of up to 12,000 ids (≈ 0.5 GB) would measure the garbage
 * collector rather than the commit. persistStep stores only the counts.
 */
const promptTokenArrays = new Map<number, number[]>();
function promptTokenIds(length: number): number[] {
  let ids = promptTokenArrays.get(length);
  if (!ids) promptTokenArrays.set(length, (ids = new Array<number>(length).fill(7)));
  return ids;
}

/** Token arrays like the engine's (≈ 4 characters per token); persistStep drops them. */
function tokenArrays(text: string, promptTokens: number) {
  const n = Math.max(1, Math.ceil(text.length / 4));
  return {
    promptTokens: promptTokenIds(promptTokens),
    tokens: Array.from({ length: n }, (_, i) => 1000 + (i % 5000)),
    logprobs: new Array<number>(n).fill(-0.05),
    promptTokenCount: promptTokens,
    responseTokenCount: n,
  };
}

/**
 * One trajectory of exactly `turnCount` turns: user turns of (user, [act call, rehearse]×calls, act reply),
 * shadow execution on every rehearse turn, two checklist verdicts per user turn.
 */
function syntheticTrajectory(groupIndex: number, rolloutIndex: number, turnCount: number, stepIndex: number): TrajectoryResult {
  const turns: TurnResult[] = [];
  const verdicts: ItemVerdict[] = [];
  const fidelities = [];
  const callsPerUserTurn = 4; // 1 user + 4 × (act + rehearse) + 1 reply = 10 turns per user turn
  let userTurn = -1;
  const actStepsPerUserTurn: number[] = [];
  const toolPerUserTurn: string[] = [];
  let microStep = 0;
  let context = 1800;
  while (turns.length < turnCount) {
    const s = SCENARIOS[(groupIndex + turns.length) % SCENARIOS.length]!;
    const index = turns.length;
    const position = index % (2 + 2 * callsPerUserTurn);
    const base = { index, userTurn: Math.max(userTurn, 0), microStep, valid: true };
    if (position === 0) {
      userTurn++;
      actStepsPerUserTurn.push(0);
      toolPerUserTurn.push(s.tool);
      turns.push({ ...base, userTurn, role: "user", text: s.user, promptTokens: [], tokens: [], logprobs: [], promptTokenCount: 0, responseTokenCount: 0 });
      continue;
    }
    const isReply = position === 1 + 2 * callsPerUserTurn || index === turnCount - 1;
    const callId = `call_${groupIndex}_${rolloutIndex}_${index}`;
    const call = { id: callId, name: s.tool, argumentsJson: JSON.stringify(s.args) };
    microStep++;
    if (position % 2 === 1 || isReply) {
      const text = isReply
        ? `<think>I have what I need to answer the user.</think>${s.reply}`
        : `<think>${s.think}</think>Let me take care of that.\n<tool_call>\n${JSON.stringify({ name: s.tool, arguments: s.args })}\n</tool_call>`;
      context = Math.min(context + 120, 12_000 - 900); // the reference prompt budget
      turns.push({ ...base, role: "act", text, calls: isReply ? undefined : [call], finishReason: "stop", ...tokenArrays(text, context), score: 0.5, advantage: (rolloutIndex - 1.5) / 3, advantageGroupId: `g${groupIndex}:act` });
      actStepsPerUserTurn[userTurn]!++;
    } else {
      const rehearsed = JSON.stringify(s.rehearsed);
      const real = JSON.stringify(s.real);
      const fidelity = compareResponses(rehearsed, real);
      fidelities.push(fidelity);
      const text = `<think>The ${s.tool} call should return the stored record for these arguments.</think>\n<execution_result>\n${JSON.stringify(s.rehearsed, null, 1)}\n</execution_result>`;
      context = Math.min(context + 160, 12_000 - 900);
      turns.push({ ...base, role: "rehearse", text, call, rehearsed, real, fidelity, finishReason: "stop", ...tokenArrays(text, context + 900), score: 0.5, advantage: (rolloutIndex - 1.5) / 4, advantageGroupId: `g${groupIndex}:rehearse` });
    }
  }
  // Two checklist items per user turn: the first act step (the call) and the last one (the reply).
  actStepsPerUserTurn.forEach((steps, u) => {
    if (steps === 0) return;
    verdicts.push(
      { checklist: 0, userTurn: u, step: 0, itemId: "C0", question: `Did the assistant call ${toolPerUserTurn[u]} with the right arguments?`, weight: 0.6, required: true, passed: rolloutIndex % 2 === 0, source: "judge", callSuccess: true, analysis: judgeAnalysis(`the ${toolPerUserTurn[u]} call`) },
      { checklist: 0, userTurn: u, step: steps - 1, itemId: "C1", question: "Does the final reply state the outcome clearly and truthfully?", weight: 0.4, required: false, passed: rolloutIndex !== 3, source: "judge", callSuccess: true, analysis: judgeAnalysis("the final reply") },
    );
  });
  const actTokens = turns.filter((t) => t.role === "act").reduce((n, t) => n + t.responseTokenCount, 0);
  const rehearseTokens = turns.filter((t) => t.role === "rehearse").reduce((n, t) => n + t.responseTokenCount, 0);
  const reward = rolloutIndex / 4;
  return {
    instanceId: `shop-bench-${groupIndex}`,
    dataSource: "builtin:shop",
    groupId: `step${stepIndex}-g${groupIndex}`,
    rolloutIndex,
    rolloutId: crypto.randomUUID(),
    paradigm: "rehearse",
    reward,
    episodeReward: reward * (userTurn + 1),
    won: reward >= 0.5,
    outcome: reward >= 1 ? "success" : "failure",
    success: reward >= 1,
    terminationReason: reward >= 0.5 ? "finished" : "max_assistant_turns",
    tokenCounts: { prompt: context, response: actTokens + rehearseTokens, actResponse: actTokens, rehearseResponse: rehearseTokens },
    assistantTurns: turns.filter((t) => t.role === "act").length,
    userTurns: userTurn + 1,
    microSteps: microStep,
    toolCalls: turns.filter((t) => t.role === "rehearse").length,
    fidelity: summarizeFidelity(fidelities),
    turns,
    verdicts,
    judgements: Array.from({ length: userTurn + 1 }, (_, u) => ({ userTurnIndex: u, reward, checklistScores: [reward], stop: false, judgeCalls: 2, judgeFailures: 0 })),
    messages: [],
    wallMs: 12_000 + groupIndex * 10,
  };
}

/** A step with `totalTurns` turns spread over `groups` × `k` trajectories. */
export function syntheticStep(stepIndex: number, totalTurns: number, groups = 16, k = 4): StepResult {
  const n = groups * k;
  const trajectories: TrajectoryResult[] = [];
  for (let i = 0; i < n; i++) {
    const share = Math.floor(totalTurns / n) + (i < totalTurns % n ? 1 : 0);
    trajectories.push(syntheticTrajectory(Math.floor(i / k), i % k, share, stepIndex));
  }
  return {
    kind: "train",
    stepIndex,
    trajectories,
    metrics: { "reward/mean": 0.375, "critic/act/advantages/mean": 0, "timing_s/step": 42, "perf/total_num_tokens": 1_234_567 },
  };
}

// ---------------------------------------------------------------------------------------------
// The measurement
// ---------------------------------------------------------------------------------------------

export interface PersistBenchResult {
  turns: number;
  trajectories: number;
  verdicts: number;
  /** Wall seconds of the measured full-size persistStep call (one transaction). */
  commitS: number;
  /** Wall seconds of the first full-size commit in the process (includes one-off warm-up costs). */
  coldCommitS: number;
  /** CPU milliseconds of the measured commit in this process and in the Postgres server (null: unknown). */
  workerCpuMs: number;
  postgresCpuMs: number | null;
  turns_per_s_persisted: number;
}

/**
 * CPU milliseconds used so far by the embedded server's processes (postmaster and its children; Linux
 * /proc only, else null): with the worker's own CPU time this gives a figure that does not depend on
 * how busy the machine is, unlike the wall time.
 */
export function postgresCpuMs(dataDir: string): number | null {
  const ticksToMs = 10; // USER_HZ is 100 on Linux
  try {
    const stats = fs
      .readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map((pid) => {
        try {
          const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
          const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
          return { pid: Number(pid), cmdline, ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) * ticksToMs };
        } catch {
          return null;
        }
      })
      .filter((p) => p !== null);
    const postmaster = stats.find((p) => p.cmdline.includes(dataDir));
    if (!postmaster) return null;
    return stats.filter((p) => p.pid === postmaster.pid || p.ppid === postmaster.pid).reduce((n, p) => n + p.cpu, 0);
  } catch {
    return null;
  }
}

async function runRow(prisma: PrismaClient, workerId: string): Promise<string> {
  const user = await prisma.user.create({ data: { id: crypto.randomUUID(), name: "Bench", email: `bench-${crypto.randomUUID()}@example.test` } });
  const run = await prisma.run.create({
    data: { name: "persist-bench", kind: "train", status: "running", workerId, heartbeatAt: new Date(), config: {}, configVersion: 1, paradigm: "rehearse", policyNode: "embedded", tags: [], totalSteps: 2, createdById: user.id, startedAt: new Date() },
    select: { id: true },
  });
  return run.id;
}

/** Time one persistStep commit of `turns` turns on a throwaway migrated embedded Postgres. */
export async function runPersistBench(opts: { turns?: number; log?: (line: string) => void } = {}): Promise<PersistBenchResult> {
  const log = opts.log ?? (() => {});
  const totalTurns = opts.turns ?? 10_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "envace-bench-pg-"));
  fs.chmodSync(dir, 0o777); // as root the server runs as the postgres user, which must enter this folder
  const port = 56000 + Math.floor(Math.random() * 4000);
  const db = await startEmbeddedPostgres({ dataDir: path.join(dir, "data"), port, database: "envace_bench", throwaway: true });
  const prisma = createPrisma(db.url);
  try {
    await migrate(db.url);
    const workerId = "bench-worker";
    const runId = await runRow(prisma, workerId);

    // A worker commits one step after another: the first full-size commit also pays one-off costs
    // (connection setup, the query compiler's WebAssembly memory growing to the parameter size), so it
    // is reported separately and the figure is the next commit of the same size.
    const cold = syntheticStep(1, totalTurns);
    const c0 = performance.now();
    await persistStep(prisma, { runId, workerId, result: cold, phase: "train", startedAt: new Date(), statePath: "tinker://bench/state-1", progress: { step: 1, total: 2, etaSeconds: 1 } });
    const coldS = (performance.now() - c0) / 1000;
    const step = syntheticStep(2, totalTurns);
    const dataDir = path.join(dir, "data");
    const pg0 = postgresCpuMs(dataDir);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const written = await persistStep(prisma, { runId, workerId, result: step, phase: "train", startedAt: new Date(), statePath: "tinker://bench/state-2", progress: { step: 2, total: 2, etaSeconds: 0 } });
    const commitS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const workerCpuMs = (cpu.user + cpu.system) / 1000;
    const pg1 = postgresCpuMs(dataDir);
    const postgresMs = pg0 !== null && pg1 !== null ? pg1 - pg0 : null;

    // The figure only counts if the rows are really there.
    const stored = await prisma.turn.count({ where: { trajectory: { runId, step: 2 } } });
    const verdicts = await prisma.checklistVerdict.count({ where: { trajectory: { runId, step: 2 } } });
    const expectedVerdicts = step.trajectories.reduce((n, t) => n + t.verdicts.length, 0);
    if (stored !== totalTurns || written.turns !== totalTurns || verdicts !== expectedVerdicts) {
      throw new Error(`persist bench: expected ${totalTurns} turns / ${expectedVerdicts} verdicts, found ${stored} / ${verdicts}`);
    }
    const textMb = step.trajectories.reduce((n, t) => n + t.turns.reduce((m, x) => m + x.text.length + (x.rehearsed?.length ?? 0) + (x.real?.length ?? 0), 0), 0) / 1e6;
    log(
      `persist: ${written.trajectories} trajectories, ${stored} turns (${textMb.toFixed(1)} MB text), ${verdicts} verdicts in ONE transaction: ` +
        `${(commitS * 1000).toFixed(0)} ms wall (first commit of the process: ${(coldS * 1000).toFixed(0)} ms); ` +
        `CPU: worker ${workerCpuMs.toFixed(0)} ms + Postgres ${postgresMs ?? "?"} ms → ${(stored / commitS).toFixed(0)} turns/s ` +
        `(target: ${totalTurns} turns < 1 s → ${commitS < 1 ? "met" : "MISSED"})`,
    );
    return { turns: stored, trajectories: written.trajectories, verdicts, commitS, coldCommitS: coldS, workerCpuMs, postgresCpuMs: postgresMs, turns_per_s_persisted: stored / commitS };
  } finally {
    await prisma.$disconnect().catch(() => {});
    await db.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  runPersistBench({ turns: process.env.BENCH_TURNS ? Number(process.env.BENCH_TURNS) : undefined, log: (l) => console.log(l) })
    .then((r) => console.log(JSON.stringify({ bench: "persist", turns: r.turns, commit_s: Number(r.commitS.toFixed(3)), turns_per_s_persisted: Math.round(r.turns_per_s_persisted) })))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
