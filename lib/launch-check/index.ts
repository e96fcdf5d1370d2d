/**
 * THE launch check: whether a run config can run, with every reason on the config field it concerns.
 * The API (runs.create — the new-run form, REST and the CLI reach it — and the test-time comparison
 * launcher) refuses a launch with these problems; the worker runs the same check on the stored config
 * before the first step and fails the run with the same words if something changed since the launch.
 *
 * - settings (`parseLaunchConfig`, new launches only): every key known to the run-config schema (zod
 *   would drop an unknown one silently), and the schema itself (values, built-in domains, BFCL
 *   categories, the user simulator tau2 needs, …). A stored config is read back leniently instead
 *   (a run keeps its config as launched, even after a setting is removed).
 * - dataset (datasets.ts): the imported dataset, MCP server, split and task ids exist; a judge for
 *   LLM-judged checklists; an executable environment where the paradigm needs one.
 * - nodes: every node the config names (policy, tool simulator, user simulator, judge) is registered,
 *   and passes the node doctor for its model and role (lib/node-doctor/gate.ts), from the report the
 *   caller supplies: the server's (younger than 24 h, else checked now when the launcher may probe the
 *   node) or the worker's (the one its node check just recorded).
 * - context (prompt-floor.ts): the smallest prompt a role will get fits the context length the node
 *   doctor found for its model ("tau2:retail user-simulator prompts need ≥ 2,073 tokens; node "embedded"
 *   / tiny-gpt has 1,024").
 * - evaluation suites (schedule.evalSuites): each suite's own evaluation config (lib/eval-suites.ts
 *   `suiteRunConfig`) gets the dataset, node and context parts too; its problems are named on the
 *   suite's fields (`schedule.evalSuites.1.instanceIds`), and what the run's own check already said is
 *   not repeated.
 * - checkpoint (checkpoint.ts): a `policy.checkpoint` names a readable training run's checkpoint that was
 *   not deleted, trained from `policy.model`, which `policy.node` can sample.
 */
import type { PrismaClient } from "@prisma/client";
import { parseNodeSettings } from "../../contracts/node-settings";
import { parseRunConfig, type RunConfig } from "../../contracts/run-config";
import { unknownSettingMessage, unknownSettings } from "../../contracts/run-settings";
import { refusalFor, type DoctorReport } from "../node-doctor";
import { nodeFieldOf, nodeRefsOf, type NodeRef } from "../node-refs";
import { bfclResourceProblems } from "./bfcl";
import { resolveRenderer } from "../renderers";
import { suiteProblemPath, suiteRunConfig } from "../eval-suites";
import type { Actor } from "../permissions";
import { checkpointVerdict } from "./checkpoint";
import { tau2DomainsOf, tau2UserHasTools } from "../tau2/datasets";
import { datasetVerdict } from "./datasets";
import type { LaunchProblem } from "./problems";
import { promptFloor, type PromptFloor } from "./prompt-floor";

export { describeProblems, type LaunchProblem } from "./problems";
export { checkpointVerdict, describeCheckpoint, pinCheckpoint, type ResolvedCheckpoint } from "./checkpoint";

/** A registered node as the check reads it (what the doctor gate and the permission rule need). */
export interface LaunchNode {
  id: string;
  name: string;
  kind: string;
  settings: unknown;
  createdById: string | null;
  createdBy: { role: string } | null;
}

export interface LaunchCheckDeps {
  prisma: PrismaClient;
  /** The node doctor's report to judge (node, model) by; null: none (the doctor verdict and the context length are then unknown). */
  doctorReport(node: LaunchNode, model: string): Promise<DoctorReport | null>;
  /** Who launches (the readable-run rule of policy.checkpoint); the worker's re-check of a stored config passes none. */
  actor?: Actor | null;
}

/**
 * A new launch's config: strict (an unknown key anywhere is refused, naming its path and the nearest
 * known key), then the schema. Problems are the union of both.
 */
export function parseLaunchConfig(input: unknown): { ok: true; config: RunConfig } | { ok: false; errors: LaunchProblem[] } {
  const unknown = unknownSettings(input ?? {}).map((u) => ({ path: u.path, message: unknownSettingMessage(u) }));
  const parsed = parseRunConfig(input);
  if (parsed.ok && unknown.length === 0) return { ok: true, config: parsed.config };
  return { ok: false, errors: [...unknown, ...(parsed.ok ? [] : parsed.errors)] };
}

const fmt = (n: number) => n.toLocaleString("en-US");

/**
 * A tau2 dataset whose user acts on its own device (telecom) needs a user simulator that calls tools: the
 * node doctor's tool-calling check must have passed for its model (it is skipped on the embedded node).
 */
function userToolCallingRefusal(ref: NodeRef, report: DoctorReport, dataset: string): string | null {
  if (ref.role !== "user simulator" || !(tau2DomainsOf(dataset) ?? []).some(tau2UserHasTools)) return null;
  const check = report.checks.find((c) => c.check === "tool-calling");
  if (check?.status === "ok") return null;
  const who = `node "${ref.node}" (user simulator, model "${ref.model}")`;
  const found = !check ? "has no tool-calling result in its node doctor report" : check.status === "failed" ? `failed the node doctor's tool-calling check: ${check.reason}` : `was not checked for tool calling by the node doctor (${check.reason})`;
  return `${who} ${found}. ${dataset}'s user acts on its phone with tool calls: choose a user simulator model that calls tools, or run the doctor again on the Nodes page.`;
}

/**
 * Everything that keeps a (schema-valid) config from running, in config order: dataset first, then each
 * node, then each evaluation suite's own.
 */
export async function launchProblems(config: RunConfig, deps: LaunchCheckDeps): Promise<LaunchProblem[]> {
  // One doctor report per (node, model) for the whole check, suites included.
  const reports = new Map<string, Promise<DoctorReport | null>>();
  const reportOf = (node: LaunchNode, model: string) => {
    const key = JSON.stringify([node.id, model]);
    if (!reports.has(key)) reports.set(key, deps.doctorReport(node, model));
    return reports.get(key)!;
  };
  const problems = await configProblems(config, deps.prisma, reportOf);
  problems.push(...(await checkpointVerdict(deps.prisma, config, deps.actor ?? null)).problems);
  const said = new Set(problems.map((p) => JSON.stringify([p.path, p.message])));
  const suites = config.kind === "train" ? config.schedule.evalSuites : [];
  for (const [i, suite] of suites.entries()) {
    for (const p of await configProblems(suiteRunConfig(config, suite), deps.prisma, reportOf)) {
      if (said.has(JSON.stringify([p.path, p.message]))) continue;
      const problem = { path: suiteProblemPath(i, suite, p.path), message: p.message };
      const key = JSON.stringify([problem.path, problem.message]);
      if (!said.has(key)) problems.push(problem);
      said.add(key);
    }
  }
  return problems;
}

/** The dataset, node and context parts for one config (a run's, or one of its suites' evaluation configs). */
async function configProblems(
  config: RunConfig,
  prisma: PrismaClient,
  reportOf: (node: LaunchNode, model: string) => Promise<DoctorReport | null>,
): Promise<LaunchProblem[]> {
  const { problems, view } = await datasetVerdict(prisma, config);
  problems.push(...(await bfclResourceProblems(config, prisma)));

  const refs = nodeRefsOf(config, { suites: false });
  const rows = await prisma.node.findMany({
    where: { name: { in: [...new Set(refs.map((r) => r.node))] } },
    select: { id: true, name: true, kind: true, settings: true, createdById: true, createdBy: { select: { role: true } } },
  });
  const floors = new Map<string, Promise<PromptFloor | null>>();

  for (const ref of refs) {
    const path = nodeFieldOf(ref.role);
    const node = rows.find((n) => n.name === ref.node);
    if (!node) {
      problems.push({ path, message: `node "${ref.node}" (${ref.role}) is not registered; add it on the Nodes page` });
      continue;
    }
    const report = await reportOf(node, ref.model);
    if (!report) continue;
    const refusal = refusalFor(ref, report, { loraRank: ref.role === "policy" ? config.policy.loraRank : undefined, training: config.kind === "train" }) ?? userToolCallingRefusal(ref, report, config.data.dataset);
    if (refusal) {
      problems.push({ path, message: refusal });
      continue;
    }
    const tooLong = await contextProblem(ref, node, report, (key, measure) => {
      if (!floors.has(key)) floors.set(key, measure());
      return floors.get(key)!;
    });
    if (tooLong) problems.push({ path, message: tooLong });
  }
  return problems;

  /** The role's smallest prompt against the node's context length, or null when it fits or cannot be measured. */
  async function contextProblem(
    ref: NodeRef,
    node: LaunchNode,
    report: DoctorReport,
    cached: (key: string, measure: () => Promise<PromptFloor | null>) => Promise<PromptFloor | null>,
  ): Promise<string | null> {
    if (view.kind === "unmeasured") return null;
    let settings;
    try {
      settings = parseNodeSettings(node.name, node.settings);
    } catch {
      return null; // damaged settings: the worker's node resolution names them
    }
    const modelSettings = settings.models[ref.model];
    const context = report.facts.contextLength ?? modelSettings?.contextLength ?? null;
    if (!context) return null;
    let resolved;
    try {
      resolved = resolveRenderer(ref.model, modelSettings, `node "${node.name}"`);
    } catch {
      return null; // no renderer known for the model: nothing to measure with
    }
    const protocol = ref.role === "policy" && node.kind !== "openai" ? "tinker" : "chat";
    const key = JSON.stringify([ref.role, protocol, resolved.renderer.name, resolved.enableThinking ?? null]);
    const floor = await cached(key, () => promptFloor(prisma, view, config.data.dataset, ref.role, protocol, resolved.renderer, resolved.enableThinking));
    if (!floor || floor.tokens < context) return null;
    return `${floor.what} need ≥ ${fmt(floor.tokens)} tokens; node "${node.name}" / ${ref.model} has ${fmt(context)} (its context length, found by the node doctor): choose a ${ref.role} model with a longer context`;
  }
}
