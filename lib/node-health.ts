/**
 * Health probe for attached nodes over their own protocols: OpenAI-compatible `/v1/models` and
 * Tinker-compatible `/api/v1/healthz` + `get_server_capabilities`. `probeAndRecord` is the one way
 * to check a registered node: the API's "Test" button and the worker's node check before a run both
 * use it. Node responses are validated like any external input.
 */
import type { PrismaClient } from "@prisma/client";
import { z } from "zod";
import { decryptSecret } from "./secrets";

export const nodeKinds = ["embedded", "openai", "tinker"] as const;
export type NodeKind = (typeof nodeKinds)[number];

export interface NodeProbeResult {
  healthy: boolean;
  detail: string;
  models: string[];
  capabilities: { chat: boolean; training: boolean; maxContextLength?: number };
  latencyMs: number;
}

const modelsResponse = z.object({ data: z.array(z.object({ id: z.string() })) });
const capabilitiesResponse = z.object({
  supported_models: z.array(z.object({ model_name: z.string(), max_context_length: z.number().nullish() })),
});

async function getJson(url: string, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
  try {
    return await res.json();
  } catch {
    throw new Error(`${url} did not return JSON`);
  }
}

function trimSlash(u: string) {
  return u.replace(/\/+$/, "");
}

export async function probeNode(node: { kind: NodeKind; baseUrl: string; apiKey?: string | null }, timeoutMs = 5000): Promise<NodeProbeResult> {
  const started = Date.now();
  const base = trimSlash(node.baseUrl);
  const models = new Set<string>();
  const problems: string[] = [];
  let chat = false;
  let training = false;
  let maxContextLength: number | undefined;

  if (node.kind === "openai" || node.kind === "embedded") {
    const headers: Record<string, string> = node.apiKey ? { authorization: `Bearer ${node.apiKey}` } : {};
    try {
      const parsed = modelsResponse.safeParse(await getJson(`${base}/v1/models`, headers, timeoutMs));
      if (!parsed.success) throw new Error(`${base}/v1/models returned an unexpected shape`);
      parsed.data.data.forEach((m) => models.add(m.id));
      chat = true;
    } catch (err) {
      problems.push(`chat: ${(err as Error).message}`);
    }
  }
  if (node.kind === "tinker" || node.kind === "embedded") {
    const headers: Record<string, string> = node.apiKey ? { "x-api-key": node.apiKey } : {};
    try {
      await getJson(`${base}/api/v1/healthz`, headers, timeoutMs);
      const parsed = capabilitiesResponse.safeParse(await getJson(`${base}/api/v1/get_server_capabilities`, headers, timeoutMs));
      if (!parsed.success) throw new Error(`${base}/api/v1/get_server_capabilities returned an unexpected shape`);
      for (const m of parsed.data.supported_models) {
        models.add(m.model_name);
        if (m.max_context_length) maxContextLength = m.max_context_length;
      }
      training = true;
    } catch (err) {
      problems.push(`training: ${(err as Error).message}`);
    }
  }
  const healthy = problems.length === 0;
  return {
    healthy,
    detail: healthy ? `ok (${models.size} model${models.size === 1 ? "" : "s"})` : problems.join("; "),
    models: [...models],
    capabilities: { chat, training, ...(maxContextLength ? { maxContextLength } : {}) },
    latencyMs: Date.now() - started,
  };
}

/**
 * Probe a registered node (with its decrypted API key) and record the result on its row: health and
 * detail always, models, capabilities and last-seen time when it answered. Null when no such node.
 */
export async function probeAndRecord(prisma: PrismaClient, where: { id: string } | { name: string }): Promise<{ id: string; name: string; probe: NodeProbeResult } | null> {
  const node = await prisma.node.findUnique({ where, select: { id: true, name: true, kind: true, baseUrl: true, apiKeyEnc: true } });
  if (!node) return null;
  const probe = await probeNode({ kind: node.kind as NodeKind, baseUrl: node.baseUrl, apiKey: node.apiKeyEnc ? decryptSecret(node.apiKeyEnc) : null });
  await prisma.node.update({
    where: { id: node.id },
    data: {
      health: probe.healthy ? "healthy" : "unhealthy",
      healthDetail: probe.detail,
      ...(probe.healthy ? { lastSeenAt: new Date(), models: probe.models, capabilities: probe.capabilities } : {}),
    },
  });
  return { id: node.id, name: node.name, probe };
}

/**
 * One light request that says whether a node answers at all (no capabilities, no models): Tinker's
 * `/api/v1/healthz` for training nodes, `/v1/models` for OpenAI-compatible ones. Null when it answers,
 * else why not. The worker asks it every few seconds while a run waits on the node.
 */
export async function pingNode(node: { kind: NodeKind; baseUrl: string; apiKey?: string | null }, timeoutMs = 3000): Promise<string | null> {
  const base = trimSlash(node.baseUrl);
  const tinker = node.kind !== "openai";
  const url = tinker ? `${base}/api/v1/healthz` : `${base}/v1/models`;
  const headers: Record<string, string> = node.apiKey ? (tinker ? { "x-api-key": node.apiKey } : { authorization: `Bearer ${node.apiKey}` }) : {};
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? null : `${url} answered HTTP ${res.status}`;
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return `${url}: ${e.cause?.code ?? (e.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : e.message)}`;
  }
}
