/**
 * Resolves the nodes a run config names into protocol clients: Tinker-compatible policy/trainer
 * (embedded or tinker nodes), OpenAI-compatible chat (judges, simulators, and policies served by
 * inference-only nodes during evaluation).
 */
import type { PrismaClient } from "@prisma/client";
import type { NodeModel, PolicyModel } from "../../contracts/run-config";
import { type NodeSettings, parseNodeSettings } from "../../contracts/node-settings";
import { decryptSecret } from "../../server/lib/secrets";
import { createOpenAIChatClient } from "../clients/openai-chat";
import { TinkerPolicy } from "../clients/tinker-policy";
import type { ChatClient, GenerateRequest, GenerateResult, PolicyClient } from "../engine/io";

export interface ResolvedNode {
  name: string;
  kind: "embedded" | "openai" | "tinker";
  baseUrl: string;
  apiKey?: string;
  settings: NodeSettings;
}

export async function resolveNode(prisma: PrismaClient, name: string, role: string): Promise<ResolvedNode> {
  const node = await prisma.node.findUnique({ where: { name }, select: { name: true, kind: true, baseUrl: true, apiKeyEnc: true, settings: true } });
  if (!node) throw new Error(`node "${name}" (${role}) is not registered; add it on the Nodes page`);
  return {
    name: node.name,
    kind: node.kind as ResolvedNode["kind"],
    baseUrl: node.baseUrl,
    apiKey: node.apiKeyEnc ? decryptSecret(node.apiKeyEnc) : undefined,
    settings: parseNodeSettings(node.name, node.settings),
  };
}

export function chatClientFor(node: ResolvedNode, model: string, timeoutMs?: number): ChatClient {
  if (node.kind === "tinker") throw new Error(`node "${node.name}" speaks only the training protocol; judges and simulators need an OpenAI-compatible node`);
  return createOpenAIChatClient({ baseUrl: `${node.baseUrl.replace(/\/+$/, "")}/v1`, apiKey: node.apiKey, model, timeoutMs });
}

/** A text-only policy over chat completions (no token ids or logprobs): usable for evaluation, not training. */
export function chatPolicy(chat: ChatClient): PolicyClient {
  return {
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const res = await chat.complete({
        messages: req.messages,
        temperature: req.sampling.temperature,
        topP: req.sampling.topP,
        maxTokens: req.sampling.maxTokens,
      });
      return { text: res.text, promptTokens: [], tokens: [], logprobs: [], finishReason: "stop" };
    },
  };
}

/**
 * The Tinker-compatible policy of a run, configured from the node's settings (server profile, deadline,
 * the LoRA rank limit the server does not advertise, wire format) and the run's LoRA rank. `log` receives warnings
 * for the run log (settings a server cannot honour, recoveries).
 */
export async function trainingPolicyFor(node: ResolvedNode, model: PolicyModel, resumeFrom?: string, log?: (message: string) => void): Promise<TinkerPolicy> {
  if (node.kind === "openai") {
    throw new Error(`node "${node.name}" is OpenAI-compatible only; training needs a Tinker-compatible node (embedded, Tinker or SkyRL tx)`);
  }
  const t = node.settings.tinker;
  return TinkerPolicy.create({
    baseUrl: node.baseUrl,
    apiKey: node.apiKey,
    nodeName: node.name,
    model: model.model,
    resumeFrom,
    loraRank: model.loraRank,
    maxLoraRank: t.maxLoraRank,
    client: { profile: t.server, futureDeadlineMs: t.futureDeadlineS * 1000, wire: t.wire },
    log,
  });
}
