/**
 * The one interface between the run executors and what a run trains or evaluates on. An environment
 * kind is registered by the prefix of `data.dataset` (worker/envs/index.ts); for one run it opens a
 * `RunEnvironment`: the instances per step and for evaluation, plus the dataset's extras (a live user
 * simulator, a policy wrapper, extra metrics, resources to release). The executors
 * (worker/runner/executors/) only ever talk to this interface, so a new benchmark plugs in here
 * without touching the runner.
 *
 * Per-episode resources (a fresh world, a server process for one episode) belong to the engine's
 * `TaskInstance.environment` factory, whose worlds may be created asynchronously and closed.
 */
import type { PrismaClient } from "@prisma/client";
import type { RunConfig } from "../../contracts/run-config";
import type { ChatClient, ChatMessage, PolicyClient, ToolSchema } from "../engine/io";
import type { StepResult } from "../engine/step";
import type { TaskInstance } from "../engine/types";

/** What an environment kind gets when a run opens it. */
export interface EnvironmentContext {
  config: RunConfig;
  /** For environments stored in the database (imported datasets). */
  prisma: PrismaClient;
  /** A warning for the run's log (e.g. "no test split: evaluating on the training split"). */
  note(message: string): void;
  /** An informational line for the run's log (e.g. the tools an MCP server offers). */
  info?(message: string): void;
  /** Aborted when the run is cancelled or the worker stops. */
  signal: AbortSignal;
}

/** A policy that can measure its prompts (TinkerPolicy is one): needed to fit prompts into a small context. */
export interface ContextAwarePolicy extends PolicyClient {
  readonly contextLength: number | null;
  /** The prompt ids generate() would send (same renderer, same options). */
  promptTokens(messages: ChatMessage[], tools?: ToolSchema[]): number[];
}

/** The policy as the runner resolved it from its node. */
export type NodePolicy =
  /** A Tinker-compatible node: samples with token ids and logprobs, and trains. */
  | { protocol: "tinker"; policy: ContextAwarePolicy }
  /** An OpenAI-compatible (inference-only) node: text only, evaluation only. */
  | { protocol: "chat"; chat: ChatClient };

/** One run's view of its environment. Every method is deterministic for a given config (resume replays it). */
export interface RunEnvironment {
  /** Instances of training step `step` (the same answer on every call: a resumed run replays identically). */
  forStep(step: number): TaskInstance[];
  /** The fixed evaluation set. */
  evalSet(): TaskInstance[];
  /**
   * Set when a live user simulator (rollout.userSimulator) answers the user turns; `missing` is the
   * error a run gets when its config names none.
   */
  userSimulator?: { missing: string };
  /** Set when the episodes are scored by the run's LLM judge (reward.judge); `missing` is the error without one. */
  judge?: { missing: string };
  /**
   * The policy the rollouts sample, wrapping the node's (e.g. tau2 fits prompts into a small context).
   * `standard` is what the runner samples otherwise: the Tinker policy itself, or the one chat-policy
   * adapter (worker/clients/chat-policy.ts) over a chat-only node. Absent: `standard`.
   */
  samplingPolicy?(node: NodePolicy, standard: PolicyClient): PolicyClient;
  /** Evaluation runs use this paradigm whatever the config says; `why` is logged when it replaces the configured one. */
  evaluationParadigm?: { paradigm: "environment"; why: string };
  /** Extra metrics of an evaluation step (e.g. tau2's pass^k), stored with the step's own. */
  evaluationMetrics?(result: StepResult): Record<string, number>;
  /** Log lines after an evaluation run: a headline (e.g. pass^k) and per-task lines. */
  evaluationReport?(result: StepResult): { headline?: string; lines: string[] };
  /** Releases what `open` started for the run (servers, processes); called once when the run ends, however it ends. */
  close?(): Promise<void>;
}

/** An environment kind, registered by the prefix of data.dataset. */
export interface EnvironmentKind {
  /** The data.dataset prefix this kind serves, e.g. "tau2:". */
  prefix: string;
  /** The forms it accepts, for error messages, e.g. "tau2:retail". */
  forms: string;
  open(ctx: EnvironmentContext): Promise<RunEnvironment>;
}
