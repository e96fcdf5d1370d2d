/**
 * The node doctor: a conformance and capability check of one node for one model, over the protocols
 * the node speaks (tinker.ts, openai.ts). The ONE node probe: registering or editing a node, the Nodes
 * page's "Run doctor", the launch gate (runs.create), the worker before a run and
 * `npm run node:doctor` all run this. Pure of the database: lib/node-health.ts records reports.
 */
import { nodeSettingsSchema, type NodeSettings } from "../../contracts/node-settings";
import { openAIChecks } from "./openai";
import { type DoctorFacts, type DoctorReport, reportOk } from "./report";
import { searchChecks } from "./search";
import { tinkerChecks } from "./tinker";

export * from "./report";
export { DOCTOR_MESSAGES, DOCTOR_MAX_TOKENS, MIN_ORDER_GAIN_NATS, notTextReason } from "./tinker";
export { DOCTOR_TOOL } from "./openai";

export interface DoctorTarget {
  kind: "embedded" | "openai" | "tinker" | "search";
  url: string;
  apiKey?: string;
  /** The registered node's name (or the URL, from the shell): named in every reason. */
  nodeName: string;
  /** The node's settings (contracts/node-settings.ts); defaults when absent. */
  settings?: NodeSettings;
}

export interface DoctorOptions {
  /** Per HTTP request and per awaited result (ms). Default 60 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export async function runDoctor(target: DoctorTarget, model: string | null, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const started = Date.now();
  const settings = target.settings ?? nodeSettingsSchema.parse({});
  const o = { timeoutMs: opts.timeoutMs ?? 60_000, fetch: opts.fetch };
  const checks: DoctorReport["checks"] = [];
  const facts: DoctorFacts = { servedModels: [] };
  const merge = (part: { checks: DoctorReport["checks"]; facts: Partial<DoctorFacts> }) => {
    checks.push(...part.checks);
    const { servedModels, ...rest } = part.facts;
    facts.servedModels = [...new Set([...facts.servedModels, ...(servedModels ?? [])])];
    Object.assign(facts, rest);
  };
  if (target.kind === "tinker" || target.kind === "embedded") merge(await tinkerChecks({ url: target.url, apiKey: target.apiKey, nodeName: target.nodeName, settings }, model, o));
  if (target.kind === "openai" || target.kind === "embedded")
    merge(await openAIChecks({ kind: target.kind, url: target.url, apiKey: target.apiKey, nodeName: target.nodeName, settings }, model, o));
  if (target.kind === "search") merge(await searchChecks({ url: target.url, apiKey: target.apiKey, nodeName: target.nodeName }, o));
  return {
    doctor: "node",
    node: target.nodeName,
    kind: target.kind,
    url: target.url,
    model,
    // No run role is doctor-gated on a search node (BFCL checks it at launch): its one check decides.
    ok: target.kind === "search" ? checks.every((c) => c.status === "ok") : reportOk(checks),
    checkedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
    checks,
    facts,
  };
}
export { refusalFor } from "./gate";
