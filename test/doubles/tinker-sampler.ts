/**
 * A fetch-level double of a Tinker-compatible server that serves one base model and answers `asample`
 * with scripted token ids, recording every sample request. Enough for TinkerPolicy's session bootstrap
 * and sampling (no training). Plug it in as TinkerPolicy.create({ client: { fetch } }).
 */
export interface SampleRequest {
  prompt: number[];
  params: { max_tokens: number; stop?: number[]; temperature?: number; top_p?: number };
}

export interface SampleReply {
  tokens: number[];
  logprobs?: number[];
  stopReason?: "stop" | "length";
}

export function tinkerSamplerDouble(opts: { model: string; maxContextLength?: number | null; reply: (req: SampleRequest) => SampleReply }) {
  const samples: SampleRequest[] = [];
  const futures = new Map<string, unknown>();
  let next = 0;
  const future = (value: unknown) => {
    const id = `req-${++next}`;
    futures.set(id, value);
    return { request_id: id };
  };
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const path = url.replace(/^.*\/api\/v1\//, "");
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
    switch (path) {
      case "client/config":
      case "session_heartbeat":
        return json(200, {});
      case "create_session":
        return json(200, { session_id: "session-1" });
      case "get_server_capabilities":
        return json(200, { supported_models: [{ model_name: opts.model, max_context_length: opts.maxContextLength ?? null }] });
      case "create_model":
        return json(200, future({ model_id: "model-1" }));
      case "create_sampling_session":
        return json(200, { sampling_session_id: "sampler-1" });
      case "asample": {
        const prompt = (body.prompt as { chunks: { tokens: number[] }[] }).chunks.flatMap((c) => c.tokens);
        const req: SampleRequest = { prompt, params: body.sampling_params as SampleRequest["params"] };
        samples.push(req);
        const r = opts.reply(req);
        return json(200, future({ sequences: [{ tokens: r.tokens, logprobs: r.logprobs ?? r.tokens.map(() => -0.5), stop_reason: r.stopReason ?? "stop" }] }));
      }
      case "retrieve_future": {
        const id = String(body.request_id);
        if (!futures.has(id)) return json(404, { detail: `unknown future ${id}` });
        return json(200, futures.get(id));
      }
      default:
        return json(404, { detail: `the sampler double does not serve ${path}` });
    }
  };
  return { fetch: fetchImpl as typeof fetch, samples };
}
