/**
 * The rollout state machine (envace-method.md §1.2, §1.8) as a pure, synchronous step function.
 *
 * `startRollout` builds the initial state; `nextNeed` says what the machine waits for (an act
 * generation, a rehearse generation, a real/simulated tool response, a turn judgement, or nothing);
 * `applyEvent` returns the next state. All I/O happens in the driver (../rollout.ts), so the machine can
 * be driven synchronously (transcripts, tests) or asynchronously (training). See README.md for the files.
 *
 * Differences from the reference are listed in docs/ARCHITECTURE.md, *Differences from the reference*
 * (judging and environment/simulator answers are external events here instead of blocking calls inside `step`).
 */
export { Termination, isEnvironmentError } from "../../../contracts/termination";
export type { PendingCall, TurnRecord, TurnRole } from "./records";
export type { RolloutEvent, RolloutNeed, RolloutOptions, RolloutState, RolloutStatus } from "./state";
export { nextNeed, rehearsePromptFor, startRollout } from "./start";
export { visibleReply } from "./act";
export { applyEvent } from "./apply";
/** Is this an error payload produced by the act parser (for typing convenience). */
export type { ActErrorCode, ActErrorPayload } from "../parsers";
