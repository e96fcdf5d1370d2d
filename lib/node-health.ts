/**
 * Health probe for attached nodes over their own protocols: OpenAI-compatible `/v1/models` and
 * Tinker-compatible `/api/v1/healthz` + `get_server_capabilities`. Used by the API ("test node")
 * and by the worker. Node responses are validated like any external input.
 */
import { z } from "zod";

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
