/**
 * Checking a registered node and recording the result: the node doctor (lib/node-doctor) run with
 * the node's decrypted API key and settings, its reports stored per model (`node_doctor_report`) and
 * the node's health, models and capabilities updated — in one transaction. `doctorAndRecord` is the
 * ONE way a registered node is probed: registering or editing it, the Nodes page's "Run doctor", the
 * launch gate (runs.create) and the worker before a run all use it.
 */
import type { Prisma, PrismaClient } from "@prisma/client";
import { nodeBaseUrl, nodeEndpoint } from "./node-url";
import { parseNodeSettings, type NodeSettings } from "../contracts/node-settings";
import { runDoctor, type DoctorReport, parseDoctorReport, summariseReport } from "./node-doctor";
import { decryptSecret } from "./secrets";

/** search: a web-search API in SerpAPI's shape (BFCL's web-search category, `bfcl.search.node`). */
export const nodeKinds = ["embedded", "openai", "tinker", "search"] as const;
export type NodeKind = (typeof nodeKinds)[number];

/**
 * How long a passing report stands in for a fresh check at launch. Older (or missing) reports are
 * re-checked by runs.create when the server may probe the node; the worker checks again before the
 * first step in any case.
 */
export const DOCTOR_REPORT_MAX_AGE_MS = 24 * 3600_000;

/**
 * The worker checks every node again before a run unless a report is younger than this — typically
 * the one runs.create just made — so a launch probes a node once, not twice.
 */
export const WORKER_REPORT_REUSE_MS = 5 * 60_000;

export interface RecordedDoctor {
  id: string;
  name: string;
  kind: NodeKind;
  reports: DoctorReport[];
}

/**
 * The models a check covers when none is asked for: those the node's settings name (settings.models)
 * and those it already has reports for (a run, the launch gate or an earlier "Run doctor" checked them),
 * so re-running the doctor refreshes what is on the page instead of adding a server-only report beside
 * them. Empty: a server-level pass then tells what the node serves and, with exactly one model, it is checked.
 */
export function defaultModels(settings: NodeSettings, reportedModels: string[]): string[] {
  return [...new Set([...Object.keys(settings.models), ...reportedModels.filter((m) => m !== "")])];
}

/**
 * Run the doctor on a registered node for `models` (default: defaultModels, else the one model the
 * node serves) and record every report and the node's health. Null when no such node.
 */
export async function doctorAndRecord(
  prisma: PrismaClient,
  where: { id: string } | { name: string },
  opts: { models?: string[]; by: "server" | "worker"; timeoutMs?: number },
): Promise<RecordedDoctor | null> {
  const node = await prisma.node.findUnique({
    where,
    select: { id: true, name: true, kind: true, baseUrl: true, apiKeyEnc: true, settings: true, doctorReports: { select: { model: true } } },
  });
  if (!node) return null;
  const kind = node.kind as NodeKind;
  const settings = parseNodeSettings(node.name, node.settings);
  const target = { kind, url: node.baseUrl, apiKey: node.apiKeyEnc ? decryptSecret(node.apiKeyEnc) : undefined, nodeName: node.name, settings };
  const doctorOpts = { timeoutMs: opts.timeoutMs };
  const reports: DoctorReport[] = [];
  const models = opts.models ?? defaultModels(settings, node.doctorReports.map((r) => r.model));
  if (models.length > 0) {
    for (const model of models) reports.push(await runDoctor(target, model, doctorOpts));
  } else {
    // Nothing named: a server-level pass says what the node serves; with exactly one model, check it.
    const first = await runDoctor(target, null, doctorOpts);
    const served = first.facts.servedModels;
    reports.push(served.length === 1 ? await runDoctor(target, served[0]!, doctorOpts) : first);
  }
  await recordReports(prisma, node.id, reports, opts.by);
  return { id: node.id, name: node.name, kind, reports };
}

/** Stores reports (replacing each model's previous one) and sets the node's health from them, in one transaction. */
export async function recordReports(prisma: PrismaClient, nodeId: string, reports: DoctorReport[], by: "server" | "worker"): Promise<void> {
  if (reports.length === 0) return;
  const ok = reports.every((r) => r.ok);
  const failing = reports.find((r) => !r.ok);
  const answered = reports.some((r) => r.checks.some((c) => (c.check === "server" || c.check === "models") && c.status === "ok"));
  const served = [...new Set(reports.flatMap((r) => r.facts.servedModels))];
  const chat = reports.some((r) => r.checks.some((c) => c.check === "models" && c.status === "ok"));
  const training = reports.some((r) => r.checks.some((c) => c.check === "server" && c.status === "ok"));
  const maxContextLength = reports.map((r) => r.facts.contextLength).find((n): n is number => typeof n === "number");
  await prisma.$transaction(async (tx) => {
    for (const report of reports) {
      const data = { ok: report.ok, report: report as unknown as Prisma.InputJsonObject, checkedAt: new Date(report.checkedAt), checkedBy: by };
      await tx.nodeDoctorReport.upsert({ where: { nodeId_model: { nodeId, model: report.model ?? "" } }, create: { nodeId, model: report.model ?? "", ...data }, update: data });
    }
    // A model's report supersedes the server-level one.
    if (reports.some((r) => r.model !== null)) await tx.nodeDoctorReport.deleteMany({ where: { nodeId, model: "" } });
    await tx.node.update({
      where: { id: nodeId },
      data: {
        health: ok ? "healthy" : "unhealthy",
        healthDetail: summariseReport(failing ?? reports[0]!),
        ...(answered ? { lastSeenAt: new Date(), models: served, capabilities: { chat, training, ...(maxContextLength ? { maxContextLength } : {}) } } : {}),
      },
    });
  });
}

/** The latest stored report of a node for a model (null when never checked, or unreadable). */
export async function latestReport(prisma: PrismaClient, nodeId: string, model: string): Promise<(DoctorReport & { checkedBy: string }) | null> {
  const row = await prisma.nodeDoctorReport.findUnique({ where: { nodeId_model: { nodeId, model } }, select: { report: true, checkedBy: true } });
  const report = row ? parseDoctorReport(row.report) : null;
  return report && row ? { ...report, checkedBy: row.checkedBy } : null;
}

/** Why a ping failed. `slow`: no answer within the timeout — a busy node, not (yet) an outage. */
export interface PingProblem {
  problem: string;
  slow: boolean;
}

/**
 * One light request that says whether a node answers at all (no capabilities, no models): Tinker's
 * `/api/v1/healthz` for training nodes, `/v1/models` for OpenAI-compatible ones. Null when it answers,
 * else why not: a refused connection or an HTTP error is a node that is down; no answer within
 * `timeoutMs` is a slow answer (a node busy training still holds its port). The worker asks it every
 * few seconds while a run waits on the node.
 */
export async function pingNode(node: { kind: NodeKind; baseUrl: string; apiKey?: string | null }, timeoutMs = 3000): Promise<PingProblem | null> {
  const tinker = node.kind === "tinker" || node.kind === "embedded";
  let url: string;
  try {
    url = node.kind === "search" ? `${nodeBaseUrl(node.baseUrl)}/` : tinker ? nodeEndpoint(node.baseUrl, "api/v1/healthz") : nodeEndpoint(node.baseUrl, "v1/models");
  } catch (err) {
    return { problem: (err as Error).message, slow: false };
  }
  const headers: Record<string, string> = node.apiKey ? (tinker ? { "x-api-key": node.apiKey } : { authorization: `Bearer ${node.apiKey}` }) : {};
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? null : { problem: `${url} answered HTTP ${res.status}`, slow: false };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === "TimeoutError") return { problem: `${url}: no answer within ${timeoutMs} ms`, slow: true };
    return { problem: `${url}: ${e.cause?.code ?? e.message}`, slow: false };
  }
}
