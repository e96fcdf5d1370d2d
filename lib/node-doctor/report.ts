/**
 * The node doctor's report: one JSON document per (node, model), the same for the Nodes page, the
 * launch gate (runs.create), the worker's pre-run check and `npm run node:doctor`. Each check says
 * ok / failed / skipped with the reason, and which run roles need it to pass — a judge needs the
 * chat round trip, not tool calling; a Tinker policy needs the sampling and tokenizer checks.
 */
import { z } from "zod";
import { nodeRoles, type NodeRole } from "../node-refs";

export const doctorCheckIds = [
  // Tinker-compatible protocol
  "server",
  "profile",
  "model",
  "lora-rank",
  "sampling",
  "tokenizer",
  "loss-scale",
  // OpenAI-compatible protocol
  "models",
  "chat",
  "tool-calling",
  "reasoning",
  // search nodes (SerpAPI shape)
  "search",
] as const;
export type DoctorCheckId = (typeof doctorCheckIds)[number];

export const checkStatuses = ["ok", "failed", "skipped"] as const;
export type CheckStatus = (typeof checkStatuses)[number];

export const doctorCheckSchema = z.object({
  check: z.enum(doctorCheckIds),
  protocol: z.enum(["tinker", "openai", "search"]),
  status: z.enum(checkStatuses),
  /** Why: what was found (ok), what is wrong and what to do (failed), why it did not run (skipped). */
  reason: z.string(),
  /** Run roles that need this check to pass on this node; [] = informational here. */
  neededBy: z.array(z.enum(nodeRoles)),
  ms: z.number().int().min(0).optional(),
});
export type DoctorCheck = z.infer<typeof doctorCheckSchema>;

/** What the doctor learned that a launch needs beyond pass/fail. */
export const doctorFactsSchema = z.object({
  servedModels: z.array(z.string()).default([]),
  /** Tinker: the server profile the client detected (lib/clients/tinker-profile.ts). */
  profile: z.string().optional(),
  /** Tinker: the largest LoRA rank the node takes (null: no known limit; absent: not checked). */
  loraRankLimit: z.number().int().positive().nullable().optional(),
  contextLength: z.number().int().positive().nullable().optional(),
  renderer: z.string().optional(),
});
export type DoctorFacts = z.infer<typeof doctorFactsSchema>;

export const doctorReportSchema = z.object({
  doctor: z.literal("node"),
  node: z.string(),
  kind: z.enum(["embedded", "openai", "tinker", "search"]),
  url: z.string(),
  /** The model checked; null when none could be chosen (only the server-level checks ran). */
  model: z.string().nullable(),
  /** Every check some role needs passed. */
  ok: z.boolean(),
  checkedAt: z.string(),
  durationMs: z.number().int().min(0),
  checks: z.array(doctorCheckSchema),
  facts: doctorFactsSchema,
});
export type DoctorReport = z.infer<typeof doctorReportSchema>;

/** A stored report read back (a damaged one is treated as absent by the caller). */
export function parseDoctorReport(value: unknown): DoctorReport | null {
  const parsed = doctorReportSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** ok = every check that some role needs passed (skipped ones count as not passed when needed). */
export function reportOk(checks: readonly DoctorCheck[]): boolean {
  return checks.every((c) => c.neededBy.length === 0 || c.status === "ok");
}

/** The checks a role needs on this report's node (a judge: chat; a Tinker policy: sampling, tokenizer, …). */
export function checksFor(report: DoctorReport, role: NodeRole): DoctorCheck[] {
  return report.checks.filter((c) => c.neededBy.includes(role));
}

/** Checks that matter only to a run that trains on the node (an evaluation never computes a loss). */
export const TRAINING_ONLY_CHECKS: readonly string[] = ["loss-scale"];

/** The first check a role needs that did not pass, or null; `training: false` leaves out the training-only checks. */
export function blockingCheck(report: DoctorReport, role: NodeRole, opts: { training?: boolean } = {}): DoctorCheck | null {
  const training = opts.training ?? true;
  return checksFor(report, role).find((c) => c.status !== "ok" && (training || !TRAINING_ONLY_CHECKS.includes(c.check))) ?? null;
}

/** "6 of 6 checks ok" / "tokenizer failed: …", for the node's health detail and logs. */
export function summariseReport(report: DoctorReport): string {
  const needed = report.checks.filter((c) => c.neededBy.length > 0);
  const bad = needed.filter((c) => c.status !== "ok");
  const model = report.model ? ` (${report.model})` : "";
  if (bad.length === 0) return `doctor: ${needed.length} of ${needed.length} checks ok${model}`;
  const first = bad[0]!;
  return `doctor${model}: ${first.check} ${first.status}: ${first.reason}${bad.length > 1 ? ` (+${bad.length - 1} more)` : ""}`;
}
