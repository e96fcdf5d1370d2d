/**
 * HTTP front of the embedded node (one node:http server):
 *  - /api/v1/*              the Tinker-compatible API (tinker-protocol.md §6): JSON, plus the SDK 0.25
 *                           protobuf forward_backward body and protobuf sample / forward_backward
 *                           results when asked for (Accept: application/x-protobuf); futures polled
 *                           through retrieve_future; contracts as strict as SkyRL tx (see protocol.ts);
 *  - /v1/models, /v1/chat/completions   OpenAI-compatible chat over the same weights, with logprobs,
 *                           tool calls and reasoning split like vLLM (openai-api.ts).
 *
 * Errors: Tinker routes answer `{detail, code}` with a 4xx/5xx status; failed futures answer 200
 * `{error, category}` (the hosted shape). OpenAI routes answer `{error:{message,type,param,code}}`.
 * Optional API key (NODE_API_KEY): X-API-Key or Authorization: Bearer; /api/v1/healthz stays open.
 */
import http from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBackend } from "./model";
import {
  UserError,
  asampleSchema,
  createModelSchema,
  createSamplingSessionSchema,
  createSessionSchema,
  forwardBackwardSchema,
  forwardSchema,
  heartbeatSchema,
  loadWeightsSchema,
  modelIdSchema,
  optimStepSchema,
  parseBody,
  retrieveFutureSchema,
  saveWeightsForSamplerSchema,
  saveWeightsSchema,
  MAX_LORA_RANK,
} from "./protocol";
import { chatCompletion, listModels } from "./openai-api";
import { NodeService, type NodeServiceOptions } from "./service";
import { PROTO_CONTENT_TYPE, decodeForwardBackwardRequest, encodeForwardBackwardOutput, encodeSampleResponse, type ForwardBackwardOutputJson, type SampleResponseJson } from "../../lib/clients/tinker-proto";

export interface NodeServerOptions extends NodeServiceOptions {
  apiKey?: string;
  /** Largest accepted request body in bytes. */
  maxBodyBytes?: number;
}

export const NODE_VERSION = "0.1.0";

/** The committed warm-start checkpoint (written by pretrain.ts). Pass it as `warmStartDir`. */
export const DEFAULT_WEIGHTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "weights", "tiny-gpt");

type Json = Record<string, unknown> | unknown[];
interface Reply {
  status: number;
  body: Json;
  /** A protobuf body instead of JSON. */
  proto?: Uint8Array;
}

const ok = (body: Json): Reply => ({ status: 200, body });

async function readBytes(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new UserError(`request body exceeds ${limit} bytes`, 413, "too_large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const isProto = (req: http.IncomingMessage) => (req.headers["content-type"] ?? "").toLowerCase().includes(PROTO_CONTENT_TYPE);

/** A JSON body, or (`proto`: forward_backward only) a protobuf ForwardBackwardRequest as its JSON equivalent. */
async function readBody(req: http.IncomingMessage, limit: number, opts: { proto?: boolean } = {}): Promise<unknown> {
  if (req.headers["content-encoding"] && req.headers["content-encoding"] !== "identity")
    throw new UserError(`content-encoding '${req.headers["content-encoding"]}' is not supported by this node`, 415, "unsupported_encoding");
  const bytes = await readBytes(req, limit);
  if (isProto(req)) {
    if (!opts.proto) throw new UserError(`this route takes JSON, not ${PROTO_CONTENT_TYPE}`, 415, "unsupported_media_type");
    try {
      const d = decodeForwardBackwardRequest(bytes);
      // The JSON-equivalent body, validated by the same schema (as SkyRL does).
      const body = {
        model_id: d.model_id,
        seq_id: d.seq_id || undefined,
        forward_only: d.forward_only,
        forward_backward_input: {
          loss_fn: d.loss_fn,
          loss_fn_config: d.loss_fn_config,
          data: d.data.map((x) => ({ model_input: { chunks: [{ type: "encoded_text", tokens: x.tokens }] }, loss_fn_inputs: x.loss_fn_inputs })),
        },
      };
      return body;
    } catch (e) {
      throw new UserError(`invalid protobuf body: ${(e as Error).message}`, 422, "malformed_proto");
    }
  }
  const text = bytes.toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(`malformed JSON body: ${(e as Error).message}`, 400, "malformed_json");
  }
}

function keyMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

// ------------------------------------------------------------------ server

export interface RunningNode {
  url: string;
  server: http.Server;
  service: NodeService;
  close(): Promise<void>;
}

export async function createNodeServer(opts: NodeServerOptions): Promise<{ server: http.Server; service: NodeService }> {
  await ensureBackend();
  const service = new NodeService(opts);
  await service.init();
  const maxBody = opts.maxBodyBytes ?? 64 * 1024 * 1024;

  async function tinkerRoute(method: string, route: string, req: http.IncomingMessage): Promise<Reply> {
    if (isProto(req) && !(method === "POST" && route === "forward_backward")) throw new UserError(`${route} takes JSON; only forward_backward accepts ${PROTO_CONTENT_TYPE}`, 415, "unsupported_media_type");
    const body = method === "POST" ? await readBody(req, maxBody, { proto: route === "forward_backward" }) : {};
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw new UserError("request body must be a JSON object");
    const key = `${method} ${route}`;
    switch (key) {
      case "GET healthz":
        return ok({ status: "ok" });
      case "POST client/config":
        return ok({
          pjwt_auth_enabled: false,
          credential_default_source: "api_key",
          proto_compress_fwdbwd: false,
          fwdbwd_max_chunk_len: service.opts.maxChunkDatums,
          fwdbwd_max_chunk_bytes_count: service.opts.maxChunkBytes,
          parallel_fwdbwd_chunks: false,
          sample_max_concurrent_requests: 512,
        });
      case "POST client/dynamic_config":
        return ok({ refresh_interval_sec: 300 });
      case "GET get_server_capabilities":
        return ok({
          ...service.capabilities(),
          node: { kind: "embedded", version: NODE_VERSION, extensions: ["dual_clip_threshold", "kl_coef", "kl_type", "entropy_coef", "weights"], max_lora_rank: MAX_LORA_RANK },
        });
      case "POST create_session": {
        const b = parseBody(createSessionSchema, body);
        return ok({ type: "create_session", ...service.createSession(b.tags) });
      }
      case "POST session_heartbeat": {
        service.heartbeat(parseBody(heartbeatSchema, body).session_id);
        return ok({ type: "session_heartbeat" });
      }
      case "POST create_model":
        return ok(service.createModel(parseBody(createModelSchema, body)));
      case "POST get_info":
        return ok(service.getInfo(parseBody(modelIdSchema, body).model_id));
      case "POST unload_model":
        return ok(service.unloadModel(parseBody(modelIdSchema, body).model_id));
      case "POST forward_backward": {
        const b = parseBody(forwardBackwardSchema, body);
        return ok(service.forwardBackward(b.model_id, b.seq_id, b.forward_backward_input, Boolean((body as { forward_only?: boolean }).forward_only)));
      }
      case "POST forward": {
        const b = parseBody(forwardSchema, body);
        return ok(service.forwardBackward(b.model_id, b.seq_id, b.forward_input, true));
      }
      case "POST optim_step": {
        const b = parseBody(optimStepSchema, body);
        return ok(service.optimStep(b.model_id, b.seq_id, b.adam_params));
      }
      case "POST save_weights_for_sampler":
        return ok(service.saveWeightsForSampler(parseBody(saveWeightsForSamplerSchema, body)));
      case "POST save_weights":
        return ok(service.saveWeights(parseBody(saveWeightsSchema, body)));
      case "POST load_weights":
        return ok(service.loadWeights(parseBody(loadWeightsSchema, body)));
      case "POST create_sampling_session": {
        const b = parseBody(createSamplingSessionSchema, body);
        return ok({ type: "create_sampling_session", ...(await service.createSamplingSession(b.session_id, b.base_model, b.model_path)) });
      }
      case "POST asample":
        return ok(await service.asample(parseBody(asampleSchema, body)));
      case "POST retrieve_future": {
        const b = parseBody(retrieveFutureSchema, body);
        const f = await service.retrieveFuture(b.request_id);
        if (!f) {
          if (service.opts.pendingReply === "408") return { status: 408, body: { detail: "Timeout waiting for result", queue_state: "active" } };
          return ok({ type: "try_again", request_id: b.request_id, queue_state: "active" });
        }
        if (f.state === "failed") return ok({ error: f.error ?? "unknown error", category: f.category ?? "unknown" });
        if ((req.headers.accept ?? "").includes(PROTO_CONTENT_TYPE)) {
          if (f.type === "sample") return { status: 200, body: {}, proto: encodeSampleResponse(f.result as SampleResponseJson) };
          if (f.type === "forward_backward" || f.type === "forward") return { status: 200, body: {}, proto: encodeForwardBackwardOutput(f.result as ForwardBackwardOutputJson) };
        }
        return ok(f.result as Json);
      }
      case "POST telemetry":
        return ok({ status: "accepted" });
      case "GET node_stats":
        return ok({ ...service.stats, uptime_s: (Date.now() - service.stats.startedAt) / 1000, base: service.describeBase() });
    }
    if (method === "GET" && route.startsWith("samplers/")) return ok(service.getSampler(decodeURIComponent(route.slice("samplers/".length))));
    const del = /^training_runs\/([^/]+)\/checkpoints\/(weights|sampler_weights)\/([^/]+)$/.exec(route);
    if (method === "DELETE" && del) {
      await service.deleteCheckpoint(decodeURIComponent(del[1]), del[2] as "weights" | "sampler_weights", decodeURIComponent(del[3]));
      return { status: 204, body: {} };
    }
    throw new UserError(`no route ${method} /api/v1/${route}`, 404, "not_found");
  }

  async function openaiRoute(method: string, route: string, req: http.IncomingMessage): Promise<Reply> {
    if (method === "GET" && route === "models") return listModels(service);
    if (method !== "POST" || route !== "chat/completions") throw new UserError(`no route ${method} /v1/${route}`, 404, "not_found");
    return chatCompletion(service, await readBody(req, maxBody));
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://node");
    const method = req.method ?? "GET";
    const isOpenAI = url.pathname.startsWith("/v1/");
    const send = (status: number, body: unknown, proto?: Uint8Array) => {
      if (res.headersSent) return;
      if (proto) {
        res.writeHead(status, { "content-type": PROTO_CONTENT_TYPE, "content-length": proto.byteLength });
        res.end(proto);
        return;
      }
      if (status === 204) {
        res.writeHead(204);
        res.end();
        return;
      }
      const text = JSON.stringify(body);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    };
    const fail = (e: unknown) => {
      const user = e instanceof UserError;
      const status = user ? e.status : 500;
      const message = user ? e.message : "internal error";
      const code = user ? e.code : "internal_error";
      if (!user) console.error("[node] unhandled error:", e);
      if (isOpenAI) send(status, { error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code } });
      else send(status, { detail: message, code });
    };
    (async () => {
      const open = url.pathname === "/api/v1/healthz";
      if (opts.apiKey && !open) {
        const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1];
        const given = (req.headers["x-api-key"] as string | undefined) ?? bearer;
        if (!keyMatches(given, opts.apiKey)) throw new UserError("missing or invalid API key", 401, "unauthorized");
      }
      let reply: Reply;
      if (url.pathname.startsWith("/api/v1/")) reply = await tinkerRoute(method, url.pathname.slice("/api/v1/".length), req);
      else if (isOpenAI) reply = await openaiRoute(method, url.pathname.slice("/v1/".length), req);
      else if (url.pathname === "/" && method === "GET") reply = ok({ name: "envace-embedded-node", version: NODE_VERSION, tinker: "/api/v1", openai: "/v1" });
      else throw new UserError(`no route ${method} ${url.pathname}`, 404, "not_found");
      send(reply.status, reply.body, reply.proto);
    })().catch(fail);
  });
  server.keepAliveTimeout = 65_000;
  server.on("close", () => service.close());
  return { server, service };
}

/** Starts the node on host:port (port 0 = ephemeral) and resolves with its URL. */
export async function startNode(opts: NodeServerOptions & { port: number; host: string }): Promise<RunningNode> {
  const { server, service } = await createNodeServer(opts);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${addr.port}`;
  return {
    url,
    server,
    service,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
