/**
 * The terms of a tau2 episode that the engine's live-user rollout (live.ts) uses: how a user
 * simulator's stop token ends the episode. The episode loop itself is the engine's rollout
 * (worker/engine/rollout.ts) over a live-user instance; a chat-only policy node goes through the one
 * chat-policy adapter (worker/clients/chat-policy.ts).
 */
import type { StopToken } from "../../../../lib/tau2/prompts";

/** How an episode ends normally: the user simulator's stop tokens (spec §8). */
export type TerminationReason = "user_stop" | "transfer" | "out_of_scope";

/** Termination reason of each stop token (spec §8). */
export const STOP_REASON: Record<StopToken, TerminationReason> = {
  "###STOP###": "user_stop",
  "###TRANSFER###": "transfer",
  "###OUT-OF-SCOPE###": "out_of_scope",
};
