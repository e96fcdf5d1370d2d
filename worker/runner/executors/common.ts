/**
 * What the train and eval executors share: opening the run's environment, the auxiliary clients
 * (judge, tool simulator, user simulator), the policy the rollouts sample, cancellation of a pending
 * engine call, and the one-line step summary for the log.
 */
import type { ChatClient, PolicyClient } from "../../engine/io";
import type { StepResult } from "../../engine/step";
import { openEnvironment, type NodePolicy, type RunEnvironment } from "../../envs";
import { CancelledError, type RunContext } from "../context";
import { chatPolicy } from "../../clients/chat-policy";
import { chatClientFor, resolveNode as resolveNodeOnce } from "../nodes";
import { whileDatabaseDown } from "../durable";
import { keyMetricsOf } from "../persist";
import { episodeHealth } from "../../engine/health";
import { describeErrored } from "../../../lib/outcomes";

/** Client replacements for tests; production (worker/main.ts) never passes any. */
export interface ClientOverrides {
  /** TEST-ONLY HOOK: replaces the user simulator the config names (e.g. test/doubles/scripted-user.ts). */
  userSimulator?: ChatClient;
}

/** Await `p`, but give up as soon as the run is cancelled (the step's rows are then never committed). */
export function untilCancelled<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new CancelledError());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Open the run's environment (worker/envs), run `body` with it, and close it however `body` ends. */
export async function withEnvironment<T>(ctx: RunContext, body: (env: RunEnvironment) => Promise<T>): Promise<T> {
  const env = await whileDatabaseDown(
    () =>
      openEnvironment({
        config: ctx.config,
        prisma: ctx.prisma,
        signal: ctx.signal,
        note: (m) => void ctx.log("warn", m).catch(() => {}),
        info: (m) => void ctx.log("info", m).catch(() => {}),
      }),
    { signal: ctx.signal },
  );
  try {
    return await body(env);
  } finally {
    await env.close?.().catch((err: unknown) => ctx.log("warn", `closing the environment failed: ${err instanceof Error ? err.message : String(err)}`).catch(() => {}));
  }
}

export interface AuxiliaryClients {
  judge?: ChatClient;
  simulator?: ChatClient;
  userSimulator?: ChatClient;
}

/** The judge and tool simulator the config names (the judge required where the environment scores with it), and the user simulator when the environment has live users. */
export async function auxiliaryClients(ctx: RunContext, env: RunEnvironment, overrides: ClientOverrides = {}): Promise<AuxiliaryClients> {
  const { config } = ctx;
  const resolveNode = (name: string, role: string) => whileDatabaseDown(() => resolveNodeOnce(ctx.prisma, name, role), { signal: ctx.signal });
  const timeoutMs = config.reward.judgeTimeoutS * 1000;
  const out: AuxiliaryClients = {};
  if (env.userSimulator) {
    if (overrides.userSimulator) out.userSimulator = overrides.userSimulator;
    else {
      const named = config.rollout.userSimulator;
      if (!named) throw new Error(env.userSimulator.missing);
      out.userSimulator = chatClientFor(await resolveNode(named.node, "user simulator"), named.model, timeoutMs);
    }
  }
  if (env.judge && !config.reward.judge) throw new Error(env.judge.missing);
  if (config.reward.judge) {
    const node = await resolveNode(config.reward.judge.node, "judge");
    out.judge = chatClientFor(node, config.reward.judge.model, timeoutMs);
  }
  if (config.rollout.simulator) {
    const node = await resolveNode(config.rollout.simulator.node, "tool simulator");
    out.simulator = chatClientFor(node, config.rollout.simulator.model, timeoutMs);
  }
  return out;
}

/** The policy the rollouts sample: the node's own (a chat-only node's through the chat-policy adapter), as the environment wraps it. */
export function samplingPolicy(env: RunEnvironment, node: NodePolicy): PolicyClient {
  const standard = node.protocol === "tinker" ? node.policy : chatPolicy(node.chat);
  return env.samplingPolicy ? env.samplingPolicy(node, standard) : standard;
}

export function stepSummary(result: StepResult): string {
  const key = keyMetricsOf(result);
  const m = result.metrics;
  const parts = [
    `reward ${key["reward/mean"]?.toFixed(3) ?? "—"}`,
    key["fidelity/mean"] !== undefined ? `fidelity ${key["fidelity/mean"].toFixed(3)}` : null,
    m["critic/act/advantages/max"] !== undefined ? `act adv max ${m["critic/act/advantages/max"].toFixed(3)}` : null,
    m["perf/total_num_tokens"] !== undefined ? `${m["perf/total_num_tokens"]} tokens` : null,
    m["timing_s/step"] !== undefined ? `${m["timing_s/step"].toFixed(1)} s` : null,
    erroredSummary(result),
  ];
  return parts.filter(Boolean).join(", ");
}

/** "1 of 3 episodes errored and left out (user simulator failed: 1)", or null when every episode ran. */
function erroredSummary(result: StepResult): string | null {
  const h = episodeHealth(result.trajectories);
  if (h.errored === 0) return null;
  return `${h.errored} of ${h.episodes} episodes errored and left out (${describeErrored(h.byKind)})`;
}
