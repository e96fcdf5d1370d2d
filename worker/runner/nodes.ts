/**
 * Resolves the nodes a run config names into protocol clients: Tinker-compatible policy/trainer
 * (embedded or tinker nodes), OpenAI-compatible chat (judges, simulators, and policies served by
 * inference-only nodes during evaluation).
 */
import type { PrismaClient } from "@prisma/client";
import { nodeEndpoint } from "../../lib/node-url";
import { parseNodeSettings, type NodeSettings } from "../../contracts/node-settings";
import type { PolicyModel } from "../../contracts/run-config";
import { attributeRenderer, resolveRenderer } from "../../lib/renderers";
import { decryptSecret } from "../../lib/secrets";
import { createOpenAIChatClient, type SharedSlots } from "../../lib/clients/openai-chat";
import { nodeSlotLeases } from "./node-slots";
import { TinkerClient } from "../../lib/clients/tinker-client";
import { TinkerPolicy } from "../clients/tinker-policy";
import type { ChatClient } from "../engine/io";

export interface ResolvedNode {
  name: string;
  kind: "embedded" | "openai" | "tinker" | "search";
  baseUrl: string;
  apiKey?: string;
  settings: NodeSettings;
  /** The node's `openai.maxConcurrency` across every worker process (leases in Postgres). */
  sharedSlots?: SharedSlots;
}

export async function resolveNode(prisma: PrismaClient, name: string, role: string): Promise<ResolvedNode> {
  const node = await prisma.node.findUnique({ where: { name }, select: { name: true, kind: true, baseUrl: true, apiKeyEnc: true, settings: true } });
  if (!node) throw new Error(`node "${name}" (${role}) is not registered; add it on the Nodes page`);
  const settings = parseNodeSettings(node.name, node.settings);
  return {
    name: node.name,
    kind: node.kind as ResolvedNode["kind"],
    baseUrl: node.baseUrl,
    apiKey: node.apiKeyEnc ? decryptSecret(node.apiKeyEnc) : undefined,
    settings,
    sharedSlots: nodeSlotLeases(prisma, { logger: (m) => console.warn(`[worker] ${m}`) }).forNode(node.name, settings.openai.maxConcurrency),
  };
}

/** An OpenAI-compatible chat client for a model on the node, with the node's `openai` settings. */
export function chatClientFor(node: ResolvedNode, model: string, timeoutMs?: number): ChatClient {
  if (node.kind === "tinker") throw new Error(`node "${node.name}" speaks only the training protocol; judges and simulators need an OpenAI-compatible node`);
  if (node.kind === "search") throw new Error(`node "${node.name}" is a search API; judges and simulators need an OpenAI-compatible node`);
  return createOpenAIChatClient({
    baseUrl: nodeEndpoint(node.baseUrl, "v1"),
    apiKey: node.apiKey,
    model,
    nodeName: node.name,
    settings: node.settings.openai,
    sharedSlots: node.sharedSlots,
    defaultTimeoutMs: timeoutMs,
  });
}

/**
 * The Tinker-compatible policy of a run, configured from the node's settings (renderer per model, server
 * profile, deadline, the LoRA rank limit the server does not advertise, wire format) and the run's LoRA
 * rank. `onWarning` receives, once each, the settings the node's server cannot honour and recoveries
 * from lost replies (for the run log). `sampleOnly` (evaluation runs): no training model is created;
 * the policy samples the base model through a sampling session.
 */
export async function trainingPolicyFor(
  node: ResolvedNode,
  model: PolicyModel,
  resumeFrom?: string,
  onWarning?: (message: string) => void,
  opts: { sampleOnly?: boolean; samplerPath?: string } = {},
): Promise<TinkerPolicy> {
  if (node.kind === "search") throw new Error(`node "${node.name}" is a search API; training needs a Tinker-compatible node (embedded, Tinker or SkyRL tx)`);
  if (node.kind === "openai") {
    throw new Error(`node "${node.name}" is OpenAI-compatible only; training needs a Tinker-compatible node (embedded, Tinker or SkyRL tx)`);
  }
  // The node model's renderer (settings.models[model], else inferred from the name) renders every prompt.
  const settings = node.settings.models[model.model];
  const { renderer, enableThinking } = resolveRenderer(model.model, settings, `node "${node.name}"`);
  const t = node.settings.tinker;
  return TinkerPolicy.create({
    baseUrl: node.baseUrl,
    apiKey: node.apiKey,
    nodeName: node.name,
    model: model.model,
    resumeFrom,
    sampleOnly: opts.sampleOnly,
    samplerPath: opts.samplerPath,
    renderer: attributeRenderer(renderer, `node "${node.name}", model "${model.model}"`),
    enableThinking,
    contextLength: settings?.contextLength,
    server: t.server,
    loraRank: model.loraRank,
    maxLoraRank: t.maxLoraRank,
    client: { futureDeadlineMs: t.futureDeadlineS * 1000, wire: t.wire },
    onWarning: onWarning && ((m) => onWarning(m.startsWith("node \"") ? m : `node "${node.name}": ${m}`)),
  });
}

/** A bare Tinker client for the node (its settings' profile, deadline and wire), for calls outside a policy (exporting a checkpoint). */
export function tinkerClientFor(node: ResolvedNode, onWarning?: (message: string) => void): TinkerClient {
  const t = node.settings.tinker;
  return new TinkerClient({ baseUrl: node.baseUrl, apiKey: node.apiKey, nodeName: node.name, profile: t.server, futureDeadlineMs: t.futureDeadlineS * 1000, wire: t.wire, log: onWarning });
}
