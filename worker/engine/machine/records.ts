/** What a rollout records: one entry per generation, tool answer and user message (stored as the trajectory's turns). */
import type { Fidelity } from "../fidelity";

export interface PendingCall {
  id: string;
  name: string;
  argumentsJson: string;
}

/** `user_tool`: a live user's own tool call on its side of the world (LiveUserAction), never shown to the agent. */
export type TurnRole = "act" | "rehearse" | "environment" | "simulator" | "user" | "user_tool";

/** One recorded event of a rollout (a generation, a tool response, a replayed user message). */
export interface TurnRecord {
  index: number;
  role: TurnRole;
  /** 0-based user turn this record belongs to. */
  userTurn: number;
  /** Micro-step of a generation (act / rehearse), else the micro-step it followed. */
  microStep: number;
  text: string;
  /** Act: parsed calls. Tool roles: the call answered. */
  calls?: PendingCall[];
  call?: PendingCall;
  /**
   * Act parse error (reference codes) or rehearse/tool error code. A failed generation is
   * GENERATION_FAILED with the error text as payload and the thrown error's own code as `cause`
   * (e.g. TOKENS_OUT_OF_VOCABULARY), which the step's health check reads.
   */
  error?: { code: string; payload?: unknown; cause?: string };
  /** Tool response that entered the conversation, and the real one under shadow execution. */
  rehearsed?: string;
  real?: string;
  fidelity?: Fidelity;
  promptTokens: number[];
  tokens: number[];
  logprobs: number[];
  finishReason?: "stop" | "length";
  promptTokenCount: number;
  responseTokenCount: number;
  /** `is_action_valid`: non-empty output (generations only). */
  valid: boolean;
}
