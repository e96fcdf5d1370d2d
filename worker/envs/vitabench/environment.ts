/**
 * `vitabench:<delivery|instore|ota|cross>[/<zh|en>]` as a run environment (evaluation runs; training runs work the
 * same way, the judge's verdict as their reward). The task file is `$ENVACE_DATA_DIR/vitabench/<folder>/tasks[_en].json`
 * (lib/vitabench/datasets.ts); every task is a live-user episode (episode.ts) whose real world answers the calls, scored
 * by the sliding-window rubric judge on reward.judge. Evaluation runs use the environment paradigm (the benchmark runs
 * its real tools; with `fidelityProbe` the rehearse role's prediction of each response is recorded beside the real one)
 * and add upstream's metrics under `val/vitabench/` (avg_reward, avg_partial, pass^k, pass@k, avg@k) over the trials
 * that ran; errored trials are counted and left out.
 */
import type { RunConfig } from "../../../contracts/run-config";
import { seededShuffle, stepSeed, takeCyclic } from "../../../lib/random";
import { parseVitaDataset, VITA_DATASET_PREFIX, VITA_DOMAINS, type VitaDataset } from "../../../lib/vitabench/datasets";
import type { PolicyClient } from "../../engine/io";
import { visibleReply } from "../../engine/machine";
import type { TrajectoryResult } from "../../engine/step";
import type { TaskInstance } from "../../engine/types";
import type { EnvironmentKind, RunEnvironment } from "../environment";
import { domainTaskFile, loadVitaTasks, VitaDataError, type VitaTask } from "./data";
import { VITA_MAX_STEPS, vitaInstance, type VitaEpisodeOptions } from "./episode";
import type { Clock } from "./registry";
import { vitaMetrics } from "./scoring";

export const VITA_FORMS = `${VITA_DATASET_PREFIX}<${VITA_DOMAINS.join("|")}>[/<zh|en>]`;
/** Upstream's orchestrator retries an agent message with neither text nor tool calls up to 3 times, then ends (invalid_agent_message). */
export const INVALID_REPLY_ATTEMPTS = 3;

/** A task of the dataset by its id, or by the instance id "vitabench:<domain>/<lang>/<id>". */
export const vitaTaskIdOf = (id: string): string => (id.startsWith(VITA_DATASET_PREFIX) ? id.slice(id.lastIndexOf("/") + 1) : id);

/** The tasks data.instanceIds names (every task when none), each named task checked. */
export function chooseVitaTasks(tasks: VitaTask[], instanceIds: string[], file: string): VitaTask[] {
  if (instanceIds.length === 0) return tasks;
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const missing = instanceIds.filter((id) => !byId.has(vitaTaskIdOf(id)));
  if (missing.length) throw new VitaDataError(`data.instanceIds: no task ${missing.slice(0, 5).map((m) => `"${m}"`).join(", ")}${missing.length > 5 ? ` (+${missing.length - 5} more)` : ""} in ${file}`);
  return instanceIds.map((id) => byId.get(vitaTaskIdOf(id))!);
}

/**
 * The sampled policy with upstream's retry of invalid agent messages: an act generation with no user-visible text
 * and no tool call is sampled again, up to 3 times in all; the last one then ends the episode (the engine's blank
 * reply, which VitaBench scores as invalid_agent_message).
 */
export function retryingInvalidReplies(policy: PolicyClient, attempts = INVALID_REPLY_ATTEMPTS): PolicyClient {
  const valid = (text: string) => text.includes("<tool_call>") || visibleReply(text).trim() !== "";
  return {
    async generate(req) {
      if (req.role !== "act") return policy.generate(req);
      let out = await policy.generate(req);
      for (let i = 1; i < attempts && !valid(out.text); i++) out = await policy.generate(req);
      return out;
    },
  };
}

/** The run's trials in upstream's terms: the task, its reward and partial score; errored trials apart. */
function trialsOf(trajectories: readonly TrajectoryResult[]) {
  const ran = trajectories.filter((t) => t.outcome !== "error");
  const partialOf = (t: TrajectoryResult) => {
    const d = t.judgements[t.judgements.length - 1]?.detail as { partial?: unknown } | undefined;
    return typeof d?.partial === "number" ? d.partial : null;
  };
  return { ran: ran.map((t) => ({ taskId: vitaTaskIdOf(t.instanceId), reward: t.reward, partial: partialOf(t) })), errored: trajectories.length - ran.length };
}

/** The trials per task the evaluation asked for (the largest group, errored trials included). */
function trialsPerTask(trajectories: readonly TrajectoryResult[]): number {
  const counts = new Map<string, number>();
  for (const t of trajectories) counts.set(t.instanceId, (counts.get(t.instanceId) ?? 0) + 1);
  return Math.max(1, ...counts.values());
}

/** Upstream's compute_metrics over the trials that ran, as metric points `val/vitabench/…`. */
export function vitaEvalMetrics(trajectories: readonly TrajectoryResult[]): Record<string, number> {
  const { ran, errored } = trialsOf(trajectories);
  const out: Record<string, number> = {};
  if (errored > 0) out["val/vitabench/errored"] = errored;
  const m = vitaMetrics(ran, trialsPerTask(trajectories));
  if (!m) return out;
  out["val/vitabench/avg_reward"] = m.avgReward;
  if (m.avgPartial !== null) out["val/vitabench/avg_partial"] = m.avgPartial;
  for (const [k, v] of m.passHatK) out[`val/vitabench/pass^${k}`] = v;
  for (const [k, v] of m.passAtK) out[`val/vitabench/pass@${k}`] = v;
  for (const [k, v] of m.avgAtK) out[`val/vitabench/avg@${k}`] = v;
  out["val/vitabench/tasks"] = m.tasks;
  out["val/vitabench/trials"] = m.trials;
  return out;
}

/** One log line per task: trials passed, the rubrics that failed (with the judge's words), errored trials and why. */
export function vitaTaskLines(trajectories: readonly TrajectoryResult[]): string[] {
  const byTask = new Map<string, TrajectoryResult[]>();
  for (const t of trajectories) byTask.set(vitaTaskIdOf(t.instanceId), [...(byTask.get(vitaTaskIdOf(t.instanceId)) ?? []), t]);
  return [...byTask].map(([taskId, ts]) => {
    const ran = ts.filter((t) => t.outcome !== "error");
    const errored = ts.filter((t) => t.outcome === "error");
    const failing = new Map<string, string>();
    const endings = new Set<string>();
    for (const t of ran) {
      const d = t.judgements[t.judgements.length - 1]?.detail as { failing?: { key: string; rubric: string }[]; note?: string } | undefined;
      for (const f of d?.failing ?? []) failing.set(f.key, f.rubric);
      if (!t.success && d?.note) endings.add(t.terminationReason);
    }
    const parts = [`task ${taskId}: ${ran.filter((t) => t.success).length}/${ran.length} passed`];
    if (failing.size) parts.push(`failing rubrics: ${[...failing].map(([k, r]) => `${k} "${r.length > 80 ? `${r.slice(0, 80)}…` : r}"`).join("; ")}`);
    if (endings.size) parts.push(`scored 0 without the judge: ${[...endings].join(", ")}`);
    if (errored.length) parts.push(`${errored.length} errored and left out (${errored[0]!.error?.cause ?? errored[0]!.terminationReason})`);
    return parts.join(", ");
  });
}

const seededPick = <T>(items: T[], count: number, seed: number, step: number): T[] => takeCyclic(seededShuffle(items, stepSeed(seed, step)), count);

/** The environment of one run on one VitaBench dataset (task file read once per process). */
export function vitaEnvironment(config: RunConfig, dataset: VitaDataset, note: (message: string) => void = () => {}, opts: { clock?: () => Clock } = {}): RunEnvironment {
  const file = domainTaskFile(dataset.domain, dataset.lang);
  const all = loadVitaTasks(file);
  const { instanceIds, instancesPerStep, seed } = config.data;
  const tasks = chooseVitaTasks(all, instanceIds, file);
  const withHistory = tasks.filter((t) => t.messageHistory);
  if (withHistory.length) throw new VitaDataError(`${file}: task "${withHistory[0]!.id}" starts from a message_history, which this port does not run (upstream resumes the conversation from it)`);
  const r = config.rollout;
  if (r.maxAssistantTurns < VITA_MAX_STEPS || r.maxUserTurns < VITA_MAX_STEPS) {
    note(
      `VitaBench runs up to ${VITA_MAX_STEPS} steps (user messages, agent messages, tool batches): rollout.maxAssistantTurns ${r.maxAssistantTurns} / maxUserTurns ${r.maxUserTurns} may end an episode earlier, which scores 0 as upstream's max_steps does`,
    );
  }
  const episode: VitaEpisodeOptions = {
    judge: { timeoutMs: config.reward.judgeTimeoutS * 1000, attempts: config.reward.judgeRetries, maxTokens: config.reward.judgeMaxTokens },
    ...(opts.clock ? { clock: opts.clock } : {}),
  };
  const chosen = tasks.map((t) => vitaInstance(dataset, t, episode));
  let evalSet: TaskInstance[] | undefined;
  return {
    forStep: (step) => (instanceIds.length ? takeCyclic(chosen, instancesPerStep, (step - 1) * instancesPerStep) : seededPick(chosen, instancesPerStep, seed, step)),
    evalSet() {
      if (evalSet) return evalSet;
      // VitaBench has one task set per domain and language; a training run evaluates on a fixed sample of it.
      if (config.kind === "eval" || instanceIds.length) return (evalSet = chosen);
      return (evalSet = seededPick(chosen, Math.min(instancesPerStep, chosen.length), seed, 0));
    },
    userSimulator: { missing: `${dataset.ref} needs a user simulator: set rollout.userSimulator to a model on an OpenAI-compatible node` },
    judge: { missing: `${dataset.ref} is scored by an LLM judge: set reward.judge to a model on an OpenAI-compatible node` },
    samplingPolicy: (_node, standard) => retryingInvalidReplies(standard),
    evaluationParadigm: { paradigm: "environment", why: "VitaBench evaluation runs the real tools" },
    evaluationMetrics: (result) => vitaEvalMetrics(result.trajectories),
    evaluationReport(result) {
      const m = result.metrics;
      const k = trialsPerTask(result.trajectories);
      const fmt = (key: string) => (m[`val/vitabench/${key}`] === undefined ? null : `${key} ${m[`val/vitabench/${key}`]!.toFixed(3)}`);
      const headline = [fmt(`avg@${k}`), fmt(`pass@${k}`), fmt(`pass^${k}`), fmt("avg_partial")].filter(Boolean).join(", ");
      return { headline: headline ? `${dataset.ref}: ${headline}` : undefined, lines: vitaTaskLines(result.trajectories).slice(0, 200) };
    },
  };
}

export const vitaEnvironments: EnvironmentKind = {
  prefix: VITA_DATASET_PREFIX,
  forms: VITA_FORMS,
  async open({ config, note }) {
    const parsed = parseVitaDataset(config.data.dataset);
    if (!parsed.ok) throw new Error(`data.dataset: ${parsed.message}`);
    return vitaEnvironment(config, parsed.dataset, note);
  },
};
