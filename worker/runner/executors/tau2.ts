/**
 * tau2 retail (`data.dataset = "tau2:retail"`) for evaluation and training runs.
 *
 * Evaluation: every chosen task (data.instanceIds = task ids, else every task of data.split) runs
 * `trialsPerTask` times against the REAL retail tools (environment paradigm, as the benchmark
 * defines it) with the user simulator named by rollout.userSimulator, sampled with sampling.evalAct;
 * with fidelityProbe the policy's rehearse role predicts each tool response before the real call.
 * The step is persisted like any evaluation (act / environment / user turns, real responses, probe and
 * fidelity, the reward breakdown as verdicts and judgement detail), plus `val/tau2/pass^k` metrics.
 *
 * Training: `tau2InstanceSource` feeds the same live-user instances to the generic training step in
 * any paradigm; the reward replays the episode's calls on a fresh DB (end state × communicate).
 */
import type { RunConfig } from "../../../contracts/run-config";
import type { ChatClient, PolicyClient } from "../../engine/io";
import { runEvaluation } from "../../engine/step";
import type { TaskInstance } from "../../engine/types";
import { chatClientPolicy, contextFittingPolicy, perTaskResults, tau2EvalMetrics, tau2LiveInstance, tau2TaskIdOf } from "../../envs/tau2";
import { loadRetailDb, type RetailDb } from "../../envs/tau2/model";
import { loadTasks, retailDataFiles, type Tau2Task } from "../../envs/tau2/tasks";
import type { Tau2RetailSource } from "../../envs/tau2/adapter";
import { readFileSync, existsSync } from "node:fs";
import { throttledProgress, type RunContext } from "../context";
import type { InstanceSource } from "../instances";
import { chatClientFor, resolveNode, trainingPolicyFor } from "../nodes";
import { persistStep } from "../persist";
import { checkNodes } from "./node-check";
import { stepSummary, untilCancelled } from "./train";

// ---------------------------------------------------------------------------------------------
// Data (parsed once per process; every episode works on its own copy-on-write view of the DB)
// ---------------------------------------------------------------------------------------------

let dbCache: { path: string; db: RetailDb } | undefined;
const sourceCache = new Map<string, Tau2RetailSource>();

/** The retail source for one split (throws a message naming ENVACE_DATA_DIR when files are missing). */
export function tau2Source(split: "train" | "test"): Tau2RetailSource {
  const files = retailDataFiles({ split });
  const key = `${files.dir}:${split}`;
  const cached = sourceCache.get(key);
  if (cached) return cached;
  if (dbCache?.path !== files.db) dbCache = { path: files.db, db: loadRetailDb(files.db) };
  const source: Tau2RetailSource = {
    db: dbCache.db,
    tasks: loadTasks(files.tasks),
    policy: readFileSync(files.policy, "utf8"),
    userGuidelines: readFileSync(files.userGuidelines, "utf8"),
  };
  sourceCache.set(key, source);
  return source;
}

/** Whether a split's task file exists (the shipped data may hold only the training split). */
export function tau2SplitAvailable(split: "train" | "test"): boolean {
  try {
    return existsSync(retailDataFiles({ split, required: [] }).tasks);
  } catch {
    return false;
  }
}

/** Tasks named by data.instanceIds ("<id>" or "tau2:retail/<id>"), else every task of the split. */
export function chooseTau2Tasks(source: Tau2RetailSource, instanceIds: string[], split: string): Tau2Task[] {
  if (instanceIds.length === 0) return source.tasks;
  const byId = new Map(source.tasks.map((t) => [t.id, t]));
  const missing = instanceIds.filter((id) => !byId.has(tau2TaskIdOf(id)));
  if (missing.length) throw new Error(`data.instanceIds: no task ${missing.slice(0, 5).map((m) => `"${m}"`).join(", ")}${missing.length > 5 ? ` (+${missing.length - 5} more)` : ""} in the tau2 retail ${split} split`);
  return instanceIds.map((id) => byId.get(tau2TaskIdOf(id))!);
}

/** Deterministic pick of `count` items for (seed, step): a seeded shuffle, cycled when count > items. */
function seededPick<T>(items: T[], count: number, seed: number, step: number): T[] {
  let s = (Math.imul(seed + 1, 1_000_003) + Math.imul(step, 7919)) >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const order = items.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return Array.from({ length: count }, (_, i) => items[order[i % order.length]!]!);
}

/**
 * Training instances per step (same answer on every call, so a resumed run replays identically) and
 * the evaluation set. A training run's evaluation uses the test split when its file exists, else a
 * fixed sample of the training split (logged through `note`).
 */
export function tau2InstanceSource(config: RunConfig, note: (message: string) => void = () => {}): InstanceSource {
  const { split, instanceIds, instancesPerStep, seed } = config.data;
  const source = tau2Source(split);
  const chosen = chooseTau2Tasks(source, instanceIds, split).map((t) => tau2LiveInstance(source, t));
  const forStep = (step: number): TaskInstance[] =>
    instanceIds.length
      ? Array.from({ length: instancesPerStep }, (_, i) => chosen[((step - 1) * instancesPerStep + i) % chosen.length]!)
      : seededPick(chosen, instancesPerStep, seed, step);
  let evalSet: TaskInstance[] | undefined;
  return {
    forStep,
    evalSet() {
      if (evalSet) return evalSet;
      if (config.kind === "eval" || instanceIds.length) return (evalSet = chosen);
      if (tau2SplitAvailable("test")) {
        const test = tau2Source("test");
        return (evalSet = seededPick(test.tasks, Math.min(instancesPerStep, test.tasks.length), seed, 0).map((t) => tau2LiveInstance(test, t)));
      }
      note("tau2 retail: no test split file (tasks.test.json); evaluating on a fixed sample of the training split");
      return (evalSet = seededPick(chosen, Math.min(instancesPerStep, chosen.length), seed, 0));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------------------------

/** The user simulator: a model on an OpenAI-compatible node, named by rollout.userSimulator. */
export async function tau2UserSimulator(ctx: RunContext): Promise<ChatClient> {
  const named = ctx.config.rollout.userSimulator;
  if (!named) throw new Error("tau2:retail needs a user simulator: set rollout.userSimulator to a model on an OpenAI-compatible node");
  const node = await resolveNode(ctx.prisma, named.node, "user simulator");
  return chatClientFor(node, named.model, ctx.config.reward.judgeTimeoutS * 1000);
}

// ---------------------------------------------------------------------------------------------
// Evaluation executor
// ---------------------------------------------------------------------------------------------

export interface Tau2EvalOptions {
  /**
   * TEST-ONLY HOOK: replaces the user simulator the config names (e.g. with the ScriptedUser test double).
   * Production (worker/main.ts) never sets it.
   */
  userSimulatorOverride?: ChatClient;
}

/** The benchmark runs real tools: evaluation uses the environment paradigm whatever the config says. */
export function tau2EvalConfig(config: RunConfig): RunConfig {
  return { ...config, rollout: { ...config.rollout, paradigm: "environment", shadowExecution: false } };
}

export async function tau2EvalExecutor(ctx: RunContext, opts: Tau2EvalOptions = {}): Promise<void> {
  const { prisma, runId, signal } = ctx;
  await checkNodes(ctx, { reportProgress: false });
  const done = await prisma.step.findFirst({ where: { runId, kind: "eval", index: 1 }, select: { id: true } });
  if (done) {
    await ctx.log("info", "evaluation already committed");
    return;
  }
  const config = tau2EvalConfig(ctx.config);
  if (ctx.config.rollout.paradigm !== "environment") {
    await ctx.log("info", `tau2 evaluation runs the real tools: paradigm "${ctx.config.rollout.paradigm}" replaced by "environment"`);
  }
  const source = tau2Source(config.data.split);
  const tasks = chooseTau2Tasks(source, config.data.instanceIds, config.data.split);
  const instances = tasks.map((t) => tau2LiveInstance(source, t));
  const userSimulator = opts.userSimulatorOverride ?? (await tau2UserSimulator(ctx));

  const policyNode = await resolveNode(prisma, config.policy.node, "policy");
  const tinker = policyNode.kind === "openai" ? null : await trainingPolicyFor(policyNode, config.policy, undefined, (m) => void ctx.log("warn", m));
  // Tinker-compatible nodes: prompts are fitted to the node's context (the retail policy alone exceeds small ones).
  const policy: PolicyClient = tinker ? contextFittingPolicy(tinker) : chatClientPolicy(chatClientFor(policyNode, config.policy.model));
  signal.addEventListener("abort", () => tinker?.close(), { once: true });
  try {
    await ctx.log(
      "info",
      `tau2 retail evaluation: ${tasks.length} task(s) of the ${config.data.split} split × ${config.trialsPerTask} trial(s), user simulator ${
        opts.userSimulatorOverride ? "(test override)" : `${config.rollout.userSimulator!.model} on ${config.rollout.userSimulator!.node}`
      }${config.fidelityProbe ? ", fidelity probe on" : ""}`,
    );
    const startedAt = new Date();
    const result = await untilCancelled(
      runEvaluation({
        instances,
        config,
        policy,
        userSimulator,
        stepIndex: 1,
        runId,
        onRolloutDone: throttledProgress(ctx),
      }),
      signal,
    );
    Object.assign(result.metrics, tau2EvalMetrics(result.trajectories));
    await persistStep(prisma, { runId, workerId: ctx.workerId, result, phase: "eval", startedAt });
    const passK = Object.entries(result.metrics)
      .filter(([k]) => k.startsWith("val/tau2/pass^"))
      .map(([k, v]) => `${k.slice("val/tau2/".length)} ${v.toFixed(3)}`)
      .join(", ");
    await ctx.log("info", `tau2 evaluation: ${passK}; ${stepSummary(result)}`);
    for (const r of perTaskResults(result.trajectories).slice(0, 200)) {
      await ctx.log("info", `task ${r.taskId}: ${r.successes}/${r.trials} passed (${r.terminations.join(", ")})`);
    }
  } finally {
    tinker?.close();
  }
}
