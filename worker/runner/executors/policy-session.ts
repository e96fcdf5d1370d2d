/**
 * The training session on the policy node, and the one way a part of a step runs on it: opened from
 * the committed training state the part starts from, and retried from that state after a restart of
 * the policy node (worker/runner/node-restarts.ts). A part that starts from weights no state was saved
 * of (schedule.stateEvery) runs on the open session that computed them; after a node restart they are
 * gone and the part throws `UnsavedWeightsLost`, on which the executor resumes from the last saved state.
 */
import type { RunConfig } from "../../../contracts/run-config";
import type { PolicyClient } from "../../engine/io";
import type { RunEnvironment } from "../../envs";
import type { TinkerPolicy } from "../../clients/tinker-policy";
import type { RunContext } from "../context";
import { withNodeRestarts } from "../node-restarts";
import { trainingPolicyFor, type ResolvedNode } from "../nodes";
import { samplingPolicy, untilCancelled, type AuxiliaryClients } from "./common";
import { UnsavedWeightsLost, type TrainingStates } from "./training-states";

/**
 * The training session on the policy node, opened from a committed training state (null: the base
 * model). After a node restart it is dropped and opened again from the state the retried part needs.
 */
export class PolicySession {
  private current: { policy: TinkerPolicy; sampler: PolicyClient; aux: AuxiliaryClients & { countTokens: (text: string) => number } } | null = null;
  /** The training state the open session holds (undefined: none open; unsavedAfter: the weights after that step, saved nowhere). */
  private held: string | null | undefined | { unsavedAfter: number } = undefined;

  private noted = false;

  constructor(
    private node: ResolvedNode,
    private config: RunConfig,
    private env: RunEnvironment,
    private aux: AuxiliaryClients,
    private ctx: RunContext,
  ) {
    ctx.signal.addEventListener("abort", () => this.close(), { once: true });
  }

  /** The session holding `state`, opened (or re-opened) when the one open holds another. */
  async holding(state: string | null) {
    if (this.current && this.held === state) return this.current;
    this.close();
    const policy = await trainingPolicyFor(this.node, this.config.policy, state ?? undefined, (m) => void this.ctx.log("warn", m));
    if (!this.noted && policy.profile === "envace-embedded" && this.config.policy.loraRank !== 32) {
      this.noted = true;
      await this.ctx.log("info", `the embedded node trains all weights of ${this.config.policy.model}; policy.loraRank ${this.config.policy.loraRank} does not apply there`);
    }
    // The engine measures appended text with the node model's own tokenizer.
    this.current = { policy, sampler: samplingPolicy(this.env, { protocol: "tinker", policy }), aux: { ...this.aux, countTokens: (text) => policy.renderer.countTokens(text) } };
    this.held = state;
    return this.current;
  }

  /** Delete a training state on the node (through the open session; none open: nothing to do). */
  async deleteState(path: string): Promise<void> {
    await this.current?.policy.deleteState(path);
  }

  /** The open session now holds `state` (it was just saved from it). */
  nowHolds(state: string) {
    if (this.current) this.held = state;
  }

  /** The open session now holds the weights after `step`, of which no state was saved. */
  nowHoldsUnsaved(step: number) {
    if (this.current) this.held = { unsavedAfter: step };
  }

  /** The open session when it holds the unsaved weights after `step` (null: it does not, e.g. after a node restart). */
  holdingUnsaved(step: number) {
    const held = this.held;
    return this.current && typeof held === "object" && held !== null && held.unsavedAfter === step ? this.current : null;
  }

  close() {
    this.current?.policy.close();
    this.current = null;
    this.held = undefined;
  }
}

/** What a part of a step runs with: the open session's policy, sampler and auxiliary clients. */
export type HeldSession = Awaited<ReturnType<PolicySession["holding"]>>;

/**
 * Runs one part of a step on the session holding the state after `fromStep`; a node restart drops the
 * session and retries the part from that same state — or, when no state was saved after `fromStep`,
 * throws `UnsavedWeightsLost` for the executor to resume from the last saved one.
 */
export function partRunner(opts: { node: ResolvedNode; session: PolicySession; states: TrainingStates; report: RunContext; signal: AbortSignal }) {
  const { node, session, states, report, signal } = opts;
  return <T>(what: string, fromStep: number, attempt: (s: HeldSession, observe: (p: PolicyClient) => PolicyClient) => Promise<T>) =>
    withNodeRestarts({
      node: { name: node.name, kind: node.kind, baseUrl: node.baseUrl, apiKey: node.apiKey },
      settings: node.settings.restarts,
      report,
      signal,
      what,
      from: states.describe(fromStep),
      reset: () => session.close(),
      attempt: async (watch) => {
        if (states.unsaved(fromStep)) {
          const s = session.holdingUnsaved(fromStep);
          if (!s) throw new UnsavedWeightsLost(fromStep, states.lastSavedStep());
          return attempt(s, (p) => watch.observe(p));
        }
        const state = states.after(fromStep);
        if (state === undefined) throw new Error(`no training state known for step ${fromStep}`);
        const s = await untilCancelled(session.holding(state), signal);
        return attempt(s, (p) => watch.observe(p));
      },
    });
}
