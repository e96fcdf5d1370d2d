/**
 * The node doctor's check of a search node (kind `search`): one query in SerpAPI's shape, as BFCL's
 * web-search category sends it (`GET /search?engine=duckduckgo&q=…&api_key=…&output=json`). It passes when
 * the answer is JSON with `organic_results` (or SerpAPI's "no results" error); a refused key, an HTTP error
 * or a body out of shape fails it with what was found.
 */
import type { DoctorCheck, DoctorFacts } from "./report";

export const SEARCH_DOCTOR_QUERY = "Berkeley Function Calling Leaderboard";

export async function searchChecks(
  target: { url: string; apiKey?: string; nodeName: string },
  o: { timeoutMs: number; fetch?: typeof fetch },
): Promise<{ checks: DoctorCheck[]; facts: Partial<DoctorFacts> }> {
  const started = Date.now();
  const done = (status: DoctorCheck["status"], reason: string) => ({
    checks: [{ check: "search" as const, protocol: "search" as const, status, reason, neededBy: [], ms: Date.now() - started }],
    facts: {},
  });
  const url = new URL(`${target.url.replace(/\/+$/, "")}/search`);
  url.searchParams.set("engine", "duckduckgo");
  url.searchParams.set("q", SEARCH_DOCTOR_QUERY);
  if (target.apiKey) url.searchParams.set("api_key", target.apiKey);
  url.searchParams.set("output", "json");
  const shown = `${target.url.replace(/\/+$/, "")}/search?engine=duckduckgo`;
  let status: number;
  let text: string;
  try {
    const res = await (o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(o.timeoutMs) });
    status = res.status;
    text = await res.text();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return done("failed", `${shown}: ${e.name === "TimeoutError" ? `no answer within ${o.timeoutMs} ms` : (e.cause?.code ?? e.message)}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return done("failed", `${shown} answered HTTP ${status} with a body that is not JSON: it does not speak SerpAPI's search API`);
  }
  const b = (body ?? {}) as { organic_results?: unknown; error?: unknown };
  if (status === 200 && Array.isArray(b.organic_results)) return done("ok", `a search returned ${b.organic_results.length} results`);
  if (status === 200 && typeof b.error === "string" && /returned any results/.test(b.error)) return done("ok", `the search API answered (no results: ${b.error})`);
  const why = typeof b.error === "string" ? b.error : `no organic_results in the answer`;
  return done("failed", `${shown} answered HTTP ${status}: ${why}${status === 401 || status === 403 ? " (check the node's API key)" : ""}`);
}
