/**
 * Loading a LoRA adapter into a running vLLM server, as vLLM defines it (vllm/entrypoints/serve/lora:
 * the routes exist only with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True; the server must run with
 * --enable-lora and a --max-lora-rank at least the adapter's):
 * - `POST /v1/load_lora_adapter {lora_name, lora_path}` → 200 with a plain-text "Success: …"; 400
 *   `{error:{message,type,code}}` when the name is already loaded (InvalidUserInput) or the adapter cannot
 *   be loaded, 404 (NotFoundError) when `lora_path` holds no adapter; without the env variable the route
 *   is missing (404 `{"detail":"Not Found"}`).
 * - A loaded adapter is listed by `GET /v1/models` (its `parent` is the base model) and sampled by naming
 *   it as the `model` of a chat completion.
 */
import { nodeBaseUrl, nodeEndpoint } from "../../lib/node-url";

const TIMEOUT_MS = 10 * 60_000;

export interface VllmNode {
  name: string;
  baseUrl: string;
  apiKey?: string;
}

// Joined onto the node's normal-form base URL (lib/node-url.ts), never pasted onto the stored text.
const v1 = (node: VllmNode, route: string) => nodeEndpoint(nodeBaseUrl(node.baseUrl, node.name), "v1", route);
const auth = (node: VllmNode): Record<string, string> => (node.apiKey ? { authorization: `Bearer ${node.apiKey}` } : {});

function errorText(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    const e = j.error;
    const m = typeof e === "object" && e ? e.message : (e ?? j.message ?? j.detail);
    return typeof m === "string" ? m : body.slice(0, 300);
  } catch {
    return body.slice(0, 300);
  }
}

/** The model ids the server serves now (base models and loaded adapters). */
export async function servedModels(node: VllmNode, signal?: AbortSignal): Promise<string[]> {
  const res = await fetch(v1(node, "models"), { headers: auth(node), signal: signal ?? AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`node "${node.name}": GET /v1/models: HTTP ${res.status} ${errorText(text)}`);
  const data = (JSON.parse(text) as { data?: { id?: unknown }[] }).data ?? [];
  return data.map((m) => m.id).filter((id): id is string => typeof id === "string");
}

/**
 * Load the adapter at `lora_path` (as the server sees it) under `name`. An adapter already loaded under that
 * name is left as it is (the name is derived from the checkpoint, so it is the same adapter).
 */
export async function loadLoraAdapter(node: VllmNode, name: string, loraPath: string, signal?: AbortSignal): Promise<"loaded" | "already loaded"> {
  const res = await fetch(v1(node, "load_lora_adapter"), {
    method: "POST",
    headers: { ...auth(node), "content-type": "application/json" },
    body: JSON.stringify({ lora_name: name, lora_path: loraPath }),
    signal: signal ?? AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.ok) return "loaded";
  const message = errorText(text);
  if (res.status === 400 && /has already been loaded/.test(message)) return "already loaded";
  if (res.status === 404 && /^\s*\{\s*"detail"\s*:\s*"Not Found"/.test(text)) {
    throw new Error(`node "${node.name}" does not load LoRA adapters at runtime (POST /v1/load_lora_adapter is not there): start vLLM with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`);
  }
  if (res.status === 404) {
    throw new Error(`node "${node.name}" found no adapter at ${loraPath} (${message}): its lora.serverAdapterDir must be the directory as the server sees the worker's lora.adapterDir`);
  }
  throw new Error(`node "${node.name}" could not load the adapter ${name} from ${loraPath}: HTTP ${res.status} ${message}`);
}
