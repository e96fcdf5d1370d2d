/**
 * The HTTP side of BFCL's web search (worker/envs/bfcl/web-search/api.ts):
 * - a search node in SerpAPI's shape: `GET <baseUrl>/search?engine=duckduckgo&q=…&kl=…&api_key=…&output=json`
 *   (what upstream's `serpapi.GoogleSearch(params).get_dict()` sends), the JSON body returned as it came
 *   (errors included: SerpAPI answers `{"error": "…"}`). A 429 — or an `error` naming 429 — is retried with
 *   upstream's backoff (2 s doubling to 120 s, plus jitter), at most `maxRateLimitRetries` times (upstream
 *   retries forever); a body that is not JSON, or a connection error, is an exception text (upstream
 *   returns `{"error": str(e)}`);
 * - page fetches as upstream's `requests.get(url, headers=<a browser's>, timeout=20, allow_redirects=True)`.
 */
import { nodeEndpoint } from "../../lib/node-url";
import { allowPrivateFetches, publicUrlProblem, type Resolve } from "./public-address";
import type { PageOutcome, SearchOutcome, SearchParams, WebSearchTransport } from "../envs/bfcl/web-search/api";

export interface SearchNodeOptions {
  baseUrl: string;
  apiKey?: string;
  nodeName: string;
  timeoutMs?: number;
  maxRateLimitRetries?: number;
  sleep?: (ms: number) => Promise<void>;
  fetchImpl?: typeof fetch;
  /** Page fetches may reach non-public addresses (default: ENVACE_WEB_FETCH_ALLOW_PRIVATE=1; public-address.ts). */
  allowPrivateAddresses?: boolean;
  /** Host name → addresses, for the public-address check (default: the system resolver). */
  resolve?: Resolve;
}

/** Python requests' default bound on redirects (upstream fetches with requests). */
const MAX_REDIRECTS = 30;

/** Upstream's browser-like request headers for page fetches. */
export const PAGE_HEADERS: Record<string, string> = {
  "User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Safari/537.36",
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
  "Accept-Language": "en-US,en;q=0.9",
  Referer: "https://www.google.com/",
};

/** The search request's URL (the key travels as SerpAPI expects it, as a query parameter). */
export function searchUrl(baseUrl: string, params: SearchParams, apiKey?: string): string {
  const url = new URL(nodeEndpoint(baseUrl, "search"));
  url.searchParams.set("engine", params.engine);
  url.searchParams.set("q", params.q);
  if (params.kl !== undefined) url.searchParams.set("kl", params.kl);
  if (apiKey) url.searchParams.set("api_key", apiKey);
  url.searchParams.set("output", "json");
  return url.toString();
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Thrown when the search node kept answering 429 past the retry limit: the environment failed, not the policy. */
export class SearchRateLimited extends Error {}

export function createSearchTransport(opts: SearchNodeOptions): WebSearchTransport {
  const f = opts.fetchImpl ?? fetch;
  const sleep = opts.sleep ?? sleepMs;
  const maxRetries = opts.maxRateLimitRetries ?? 6;
  return {
    async search(params): Promise<SearchOutcome> {
      let backoff = 2;
      for (let attempt = 0; ; attempt++) {
        let status: number;
        let text: string;
        try {
          const res = await f(searchUrl(opts.baseUrl, params, opts.apiKey), { signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
          status = res.status;
          text = await res.text();
        } catch (err) {
          return { exception: (err as Error).message };
        }
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          if (status !== 429) return { exception: `search node "${opts.nodeName}" answered ${status} with a body that is not JSON: ${text.slice(0, 200)}` };
        }
        const limited = status === 429 || (body !== null && typeof body === "object" && "error" in body && String((body as { error: unknown }).error).includes("429"));
        if (!limited) return { body };
        if (attempt >= maxRetries) throw new SearchRateLimited(`search node "${opts.nodeName}" answered 429 (rate limit) ${attempt + 1} times in a row`);
        await sleep((backoff + Math.random() * backoff) * 1000);
        backoff = Math.min(backoff * 2, 120);
      }
    },
    async fetchPage(url): Promise<PageOutcome> {
      const allowPrivate = opts.allowPrivateAddresses ?? allowPrivateFetches();
      const signal = AbortSignal.timeout(20_000);
      try {
        // Redirects are followed here, each hop checked like the first URL (a public page may redirect inward).
        let current = url;
        for (let hop = 0; ; hop++) {
          const problem = allowPrivate ? null : await publicUrlProblem(current, opts.resolve);
          if (problem) return { exception: problem };
          const res = await f(current, { headers: PAGE_HEADERS, redirect: "manual", signal });
          const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
          if (!location) return { url: current, status: res.status, reason: res.statusText, text: await res.text() };
          await res.arrayBuffer().catch(() => undefined);
          if (hop >= MAX_REDIRECTS) return { exception: `Exceeded ${MAX_REDIRECTS} redirects.` };
          current = new URL(location, current).toString();
        }
      } catch (err) {
        const e = err as Error & { cause?: Error };
        return { exception: e.name === "TimeoutError" ? `Read timed out. (read timeout=20)` : (e.cause?.message ?? e.message) };
      }
    },
  };
}
