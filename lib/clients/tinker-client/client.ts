/**
 * The client of one node: bootstrap (client/config, the JWT exchange when asked, profile resolution,
 * create_session and heartbeats), the session-level calls (create_model with its recovery after a lost
 * reply, sampling sessions, sampler info, checkpoint deletion) and the seams its models and sampling
 * sessions use (call, submit, waitFuture, sampleIn). HTTP is ./transport.ts, futures ./futures.ts,
 * sampling ./sampling.ts, a model's ops ./model.ts.
 */
import { nodeBaseUrl } from "../../node-url";
import type { z } from "zod";
import type { TinkerServerProfile } from "../../../contracts/node-settings";
import { type DetectedProfile, type ProfileEvidence, type ResolvedProfile, detectServerProfile, needsRootProbe } from "../tinker-profile";
import {
  type ClientConfig,
  type SampleResponse,
  type ServerCapabilities,
  capabilitiesReply,
  clientConfigReply,
  createSamplingSessionReply,
  createSessionReply,
  getInfoReply,
  heartbeatReply,
  samplerInfoReply,
} from "../tinker-wire";
import { TinkerError } from "./errors";
import { Futures, RESULT, type ResultKind } from "./futures";
import { TinkerModel } from "./model";
import { Sampler, SamplingSession } from "./sampling";
import { type Body, type CallOptions, Transport } from "./transport";
import { type SampleExtras, type SamplingParams, TINKER_SDK_VERSION, type TinkerClientOptions, type WireFormat } from "./types";

type Settings = Required<Omit<TinkerClientOptions, "apiKey" | "fetch" | "nodeName" | "profile" | "wire" | "pollTimeoutMs" | "log">> & { pollTimeoutMs?: number };

export class TinkerClient {
  readonly baseUrl: string;
  readonly nodeName: string;
  private readonly o: Settings;
  private readonly log: (message: string) => void;
  private readonly requestedProfile: TinkerServerProfile;
  private readonly requestedWire: WireFormat | undefined;
  private readonly apiKey: string | undefined;
  private readonly transport: Transport;
  private readonly futures: Futures;
  private readonly sampler: Sampler;
  private sessionId: string | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private modelSeq = 0;
  private samplingSeq = 0;
  private detected: DetectedProfile | null = null;
  private evidence: ProfileEvidence | null = null;
  private caps: ServerCapabilities | null = null;
  /** Sessions given up after a create_model whose outcome is unknown (their orphans are reaped by the server). */
  readonly abandonedSessions: string[] = [];
  config: ClientConfig = clientConfigReply.parse({});
  lastHeartbeatOk = 0;

  constructor(opts: TinkerClientOptions) {
    // The normal form (lib/node-url.ts); requests join their paths onto it (Transport).
    this.baseUrl = nodeBaseUrl(opts.baseUrl, opts.nodeName);
    this.nodeName = opts.nodeName ?? this.baseUrl;
    this.log = opts.log ?? ((m) => console.warn(`[tinker] ${m}`));
    this.requestedProfile = opts.profile ?? "auto";
    this.requestedWire = opts.wire;
    this.apiKey = opts.apiKey;
    this.o = {
      timeoutMs: 60_000,
      futureDeadlineMs: 2 * 3600_000,
      submitRetryMs: 5 * 60_000,
      maxRetries: 12,
      heartbeatMs: 10_000,
      retryBaseMs: 500,
      retryMaxMs: 30_000,
      ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
    } as Settings;
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      nodeName: this.nodeName,
      apiKey: this.apiKey,
      fetch: opts.fetch ?? fetch,
      log: this.log,
      timeoutMs: this.o.timeoutMs,
      submitRetryMs: this.o.submitRetryMs,
      maxRetries: this.o.maxRetries,
      retryBaseMs: this.o.retryBaseMs,
      retryMaxMs: this.o.retryMaxMs,
      profile: () => this.detected?.profile,
    });
    this.futures = new Futures(this.transport, {
      nodeName: this.nodeName,
      futureDeadlineMs: this.o.futureDeadlineMs,
      pollTimeoutMs: () => this.pollTimeoutMs,
      retryBaseMs: this.o.retryBaseMs,
      retryMaxMs: this.o.retryMaxMs,
      log: this.log,
    });
    this.sampler = new Sampler(this.futures, { config: () => this.config, futureDeadlineMs: this.o.futureDeadlineMs });
  }

  get session(): string {
    if (!this.sessionId) throw new Error("TinkerClient.start() has not been called");
    return this.sessionId;
  }

  /** The server profile (resolved by start() when "auto"): the one answer transport, loss semantics and the doctor use. */
  get profile(): ResolvedProfile {
    if (!this.detected) throw new Error("TinkerClient.start() has not been called");
    return this.detected.profile;
  }

  /** The profile with what it rests on, and the sentence to show when it is a guess (SkyRL's backend). */
  get detectedProfile(): DetectedProfile {
    if (!this.detected) throw new Error("TinkerClient.start() has not been called");
    return this.detected;
  }

  /** What the profile was detected from (for the doctor's conflict check against the node's setting). */
  get profileEvidence(): ProfileEvidence {
    if (!this.evidence) throw new Error("TinkerClient.start() has not been called");
    return this.evidence;
  }

  get futureDeadlineMs(): number {
    return this.o.futureDeadlineMs;
  }

  warn(message: string): void {
    this.log(message);
  }

  get wire(): WireFormat {
    return this.requestedWire ?? "protobuf";
  }

  /** Per retrieve_future call: a little past the server's long poll, so the server answers first. */
  get pollTimeoutMs(): number {
    if (this.o.pollTimeoutMs !== undefined) return this.o.pollTimeoutMs;
    const p = this.detected?.profile;
    return p === "skyrl-jax" || p === "skyrl-train" ? 330_000 : 45_000;
  }

  /** client/config, JWT exchange when asked, profile resolution, create_session, then heartbeats. */
  async start(tags: string[] = []): Promise<void> {
    if (this.sessionId) return;
    this.config = await this.call("POST", "client/config", { json: { sdk_version: TINKER_SDK_VERSION } }, clientConfigReply);
    if (this.config.pjwt_auth_enabled) await this.transport.refreshJwt();
    this.caps = await this.call("GET", "get_server_capabilities", null, capabilitiesReply);
    this.evidence = await this.gatherEvidence();
    this.detected = detectServerProfile(this.requestedProfile, this.evidence);
    if (this.detected.profile === "tinker" && this.apiKey && !/^(tml-|eyJ)/.test(this.apiKey))
      throw new TinkerError(`node "${this.nodeName}": hosted Tinker API keys start with "tml-" (or are a JWT); check the node's API key`, null, "user", false, "bad_api_key", "input");
    await this.openSession(tags);
  }

  private async openSession(tags: string[]): Promise<void> {
    const s = await this.call("POST", "create_session", { json: { type: "create_session", tags, user_metadata: {}, sdk_version: TINKER_SDK_VERSION } }, createSessionReply);
    if (s.error_message) throw new TinkerError(`${this.transport.where("POST", "create_session")}: ${s.error_message}`, null, "server", false, undefined, "failed");
    if (s.warning_message) this.log(`node "${this.nodeName}": ${s.warning_message}`);
    if (s.info_message) this.log(`node "${this.nodeName}": ${s.info_message}`);
    this.sessionId = s.session_id;
    this.modelSeq = 0;
    this.samplingSeq = 0;
    this.lastHeartbeatOk = Date.now();
    if (this.heartbeat) clearInterval(this.heartbeat);
    // One heartbeat now: SkyRL never reaps a session that has not heartbeated, and an abandoned
    // session must be reapable (see createModel).
    await this.sendHeartbeat();
    this.heartbeat = setInterval(() => void this.sendHeartbeat(), this.o.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Evidence for the profile (lib/clients/tinker-profile.ts); GET / only when the rest does not decide. */
  private async gatherEvidence(): Promise<ProfileEvidence> {
    const base = { embedded: this.caps?.node?.kind === "embedded", hostname: new URL(this.baseUrl).hostname };
    if (!needsRootProbe(base)) return { ...base, rootName: null };
    const root = await this.transport.rawGet("/").catch(() => null);
    return { ...base, rootName: root?.name ?? null };
  }

  private async sendHeartbeat(): Promise<void> {
    if (!this.sessionId) return;
    try {
      await this.call("POST", "session_heartbeat", { json: { type: "session_heartbeat", session_id: this.sessionId } }, heartbeatReply, { retries: 0, timeoutMs: 10_000 });
      this.lastHeartbeatOk = Date.now();
    } catch (e) {
      if (Date.now() - this.lastHeartbeatOk > 120_000) this.log(`node "${this.nodeName}": no successful heartbeat for 2 minutes (the server may end the session): ${(e as Error).message}`);
    }
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  // ---------------------------------------------------------------- seams for models and sessions

  /** One validated call with retries (./transport.ts). */
  call<T>(method: "GET" | "POST", path: string, body: Body | null, schema: z.ZodType<T, z.ZodTypeDef, unknown>, opts: CallOptions & { skipJwt?: boolean } = {}): Promise<T> {
    return this.transport.call(method, path, body, schema, opts);
  }

  /** POSTs a future-returning request; returns its request_id. */
  submit(path: string, body: Body, opts: CallOptions = {}): Promise<{ requestId: string; modelId?: string | null }> {
    return this.futures.submit(path, body, opts);
  }

  /** Long-polls retrieve_future until the result is ready (./futures.ts). */
  waitFuture<T>(requestId: string, kind: ResultKind<T>, opts: { signal?: AbortSignal; deadline?: number; what?: string } = {}): Promise<T> {
    return this.futures.wait(requestId, kind, opts);
  }

  // ---------------------------------------------------------------- high-level calls

  async capabilities(): Promise<ServerCapabilities> {
    if (!this.caps) this.caps = await this.call("GET", "get_server_capabilities", null, capabilitiesReply);
    return this.caps;
  }

  /**
   * create_model. Hosted Tinker derives the model id from (session, model_seq_id), so a retry after a
   * lost reply is idempotent (and checked with get_info first). SkyRL tx and the embedded node create
   * a second model on every retry; there the client moves to a fresh session instead, so the orphan
   * (if any) is reaped with the abandoned session, and nothing leaks.
   */
  async createModel(baseModel: string, opts: { loraRank?: number; seed?: number } = {}): Promise<TinkerModel> {
    const idempotent = this.profile === "tinker";
    for (let recovery = 0; ; recovery++) {
      const modelSeqId = this.modelSeq++;
      const body = {
        type: "create_model",
        session_id: this.session,
        model_seq_id: modelSeqId,
        base_model: baseModel,
        user_metadata: {},
        lora_config: { rank: opts.loraRank ?? 32, ...(opts.seed !== undefined ? { seed: opts.seed } : {}), train_unembed: true, train_mlp: true, train_attn: true },
      };
      let submitted: { requestId: string; modelId?: string | null };
      try {
        submitted = await this.submit("create_model", { json: body }, { retryUnknownOutcome: idempotent });
      } catch (e) {
        const err = e as TinkerError;
        const unknownOutcome = err instanceof TinkerError && (err.kind === "transport" || (err.status ?? 0) >= 500);
        if (!unknownOutcome || recovery >= 2) throw e;
        if (idempotent) {
          const existing = await this.call("POST", "get_info", { json: { type: "get_info", model_id: `${this.session}:train:${modelSeqId}` } }, getInfoReply).catch(() => null);
          if (existing) return new TinkerModel(this, existing.model_id, baseModel);
          this.modelSeq = modelSeqId; // not created: reuse its model_seq_id
          continue;
        }
        const old = this.session;
        this.abandonedSessions.push(old);
        this.log(`node "${this.nodeName}": create_model outcome unknown (${err.message}); moving to a fresh session so a half-created model is reaped with session ${old}`);
        this.close();
        this.sessionId = null;
        await this.openSession(["envace", "recovered"]);
        continue;
      }
      const out = await this.waitFuture(submitted.requestId, RESULT.createModel, { what: "create_model" });
      return new TinkerModel(this, out.model_id, baseModel);
    }
  }

  /** A sampling session on a base model or a tinker:// sampler path. */
  async createSamplingSession(ref: { baseModel: string } | { modelPath: string }): Promise<SamplingSession> {
    const r = await this.call(
      "POST",
      "create_sampling_session",
      {
        json: {
          type: "create_sampling_session",
          session_id: this.session,
          sampling_session_seq_id: this.samplingSeq++,
          ...("baseModel" in ref ? { base_model: ref.baseModel } : { model_path: ref.modelPath }),
        },
      },
      createSamplingSessionReply,
    );
    return new SamplingSession(this, r.sampling_session_id);
  }

  /** What the node says a sampling session samples (GET samplers/{id}): its base model or a checkpoint's sampler path. */
  async samplerInfo(id: string): Promise<{ baseModel: string | null; modelPath: string | null }> {
    const r = await this.call("GET", `samplers/${encodeURIComponent(id)}`, null, samplerInfoReply);
    return { baseModel: r.base_model ?? null, modelPath: r.model_path ?? null };
  }

  /** Headers authenticating a plain request to this node (the JWT refreshed near expiry), and its fetch, for REST reads outside the client (tinker-archive.ts). */
  rest(): Promise<{ fetch: typeof fetch; headers: Record<string, string> }> {
    return this.transport.rest();
  }

  /** The next per-session sampling counter (create_sampling_session and ephemeral sampler saves share it). */
  nextSamplingSeqId(): number {
    return this.samplingSeq++;
  }

  /** Validated sampling parameters as sent (max_tokens required, stop always a list of one kind). */
  samplingParams(p: SamplingParams): Record<string, unknown> {
    return Sampler.params(p);
  }

  /** Internal: asample under a sampling session and wait for it (within the concurrency limit). */
  sampleIn(session: SamplingSession, prompt: number[], params: SamplingParams, numSamples: number, signal?: AbortSignal, extra: SampleExtras = {}): Promise<SampleResponse> {
    return this.sampler.sample(session, prompt, params, numSamples, signal, extra);
  }

  /** asample against a base model or a sampler path, through a one-off sampling session (use SamplingSession.sample to reuse one). */
  async sample(target: { baseModel: string } | { modelPath: string }, prompt: number[], params: SamplingParams, numSamples = 1, signal?: AbortSignal): Promise<SampleResponse> {
    const session = await this.createSamplingSession(target);
    return session.sample(prompt, params, numSamples, signal);
  }

  /** Deletes a checkpoint (training state or sampler weights) by its tinker:// path. */
  async deleteCheckpoint(path: string): Promise<void> {
    const m = /^tinker:\/\/([^/]+)\/(weights|sampler_weights)\/([^/]+)$/.exec(path);
    if (!m) throw new TinkerError(`cannot delete '${path}': not a tinker://<model>/<weights|sampler_weights>/<name> path`, null, "user", false, "bad_params", "input");
    await this.transport.send("DELETE", `training_runs/${encodeURIComponent(m[1])}/checkpoints/${m[2]}/${encodeURIComponent(m[3])}`, null, { retries: 3 });
  }
}
