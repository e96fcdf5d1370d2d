/**
 * Whether a run may use a node in a role, from the node doctor's report: the launch gate of
 * runs.create and the worker's pre-run check say the same thing in the same words. Pure.
 */
import type { NodeRef } from "../node-refs";
import { blockingCheck, type DoctorReport } from "./report";

const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/**
 * The reason `ref` (a role, node and model of a run config) may not run on the node, or null.
 * `loraRank`: the run's policy.loraRank, checked against the limit the doctor found. `training`: whether the
 * run trains (default yes); an evaluation is not refused for a check only training needs (the loss scale).
 */
export function refusalFor(ref: NodeRef, report: DoctorReport, opts: { loraRank?: number; training?: boolean } = {}): string | null {
  const who = `node "${ref.node}" (${ref.role}, model "${ref.model}")`;
  const bad = blockingCheck(report, ref.role, { training: opts.training });
  if (bad) {
    const state = bad.status === "failed" ? "failed" : "could not run";
    return `${who} ${state} the node doctor's ${bad.check} check (checked ${when(report.checkedAt)}): ${bad.reason}. Fix the node or its settings, then run the doctor again on the Nodes page.`;
  }
  if (ref.role === "policy" && report.kind !== "openai" && opts.loraRank !== undefined && report.facts.profile !== "envace-embedded") {
    const limit = report.facts.loraRankLimit;
    if (typeof limit === "number" && opts.loraRank > limit)
      return `${who}: policy.loraRank ${opts.loraRank} is above the largest LoRA rank the node takes (${limit}, the doctor's lora-rank check); lower policy.loraRank or raise the node's tinker.maxLoraRank if the server allows more.`;
  }
  return null;
}
