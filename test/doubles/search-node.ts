/**
 * TEST DOUBLE — a search API in SerpAPI's shape (https://serpapi.com/duckduckgo-search-api), as BFCL's
 * WebSearchAPI calls it, plus the pages its results link to. Not a search engine: the test gives the
 * results per query. Enforced as SerpAPI documents it:
 * - `GET /search` only; `api_key` must be the node's key (401 `{"error":"Invalid API key. …"}`);
 * - `engine=duckduckgo` (400 `Unsupported … search engine.` otherwise); `q` required (400 `Missing query \`q\`
 *   parameter.`); `kl` when given must be a DuckDuckGo region code (400);
 * - results answer `{search_metadata, search_parameters, organic_results:[{position,title,link,snippet}]}`; a
 *   query without results answers 200 `{"error":"DuckDuckGo hasn't returned any results for this query."}`
 *   (no organic_results), as SerpAPI does;
 * - `rateLimitNext(n)`: the next n searches answer 429 `{"error":"Your account has run out of searches."}`.
 * Pages: `GET /pages/<name>` serves `pages[name]` as text/html; `/redirect/<name>` 302s to it; else 404.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface SearchDoubleResult {
  title: string;
  link: string;
  snippet: string;
}

export interface SearchDouble {
  url: string;
  /** The query parameters of every search, in order. */
  searches: Record<string, string>[];
  rateLimitNext(n: number): void;
  close(): Promise<void>;
}

/** DuckDuckGo's region codes as SerpAPI lists them (BFCL's function document uses the same list). */
export const DDG_REGIONS = new Set(
  "xa-ar xa-en ar-es au-en at-de be-fr be-nl br-pt bg-bg ca-en ca-fr ct-ca cl-es cn-zh co-es hr-hr cz-cs dk-da ee-et fi-fi fr-fr de-de gr-el hk-tzh hk-tz hu-hu in-en id-id id-en ie-en il-he it-it jp-jp kr-kr lv-lv lt-lt xl-es my-ms my-en mx-es nl-nl nz-en no-no pe-es ph-en ph-tl pl-pl pt-pt ro-ro ru-ru sg-en sk-sk sl-sl za-en es-es se-sv ch-de ch-fr ch-it tw-tzh tw-tz th-th tr-tr ua-uk uk-en us-en ue-es ve-es vn-vi wt-wt".split(" "),
);

export async function startSearchDouble(opts: { apiKey: string; results: (q: string, kl: string | undefined, base: string) => SearchDoubleResult[]; pages?: Record<string, string> }): Promise<SearchDouble> {
  const searches: Record<string, string>[] = [];
  let limited = 0;
  let base = "";
  const send = (res: http.ServerResponse, status: number, body: unknown, type = "application/json", extra: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": type, ...extra });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", base);
    if (req.method !== "GET") return send(res, 405, { error: "Method not allowed" });
    const page = /^\/(pages|redirect)\/([\w.-]+)$/.exec(u.pathname);
    if (page) {
      const html = opts.pages?.[page[2]];
      if (html === undefined) return send(res, 404, "<h1>Not Found</h1>", "text/html");
      if (page[1] === "redirect") return send(res, 302, "", "text/html", { location: `/pages/${page[2]}` });
      return send(res, 200, html, "text/html; charset=utf-8");
    }
    if (u.pathname !== "/search" && u.pathname !== "/search.json") return send(res, 404, { error: "Not found" });
    const p = Object.fromEntries(u.searchParams.entries());
    if (p.api_key !== opts.apiKey) return send(res, 401, { error: "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key" });
    if (limited > 0) {
      limited -= 1;
      return send(res, 429, { error: "Your account has run out of searches." });
    }
    if (p.engine !== "duckduckgo") return send(res, 400, { error: `Unsupported \`${p.engine ?? ""}\` search engine.` });
    if (!p.q) return send(res, 400, { error: "Missing query `q` parameter." });
    if (p.kl !== undefined && !DDG_REGIONS.has(p.kl)) return send(res, 400, { error: `Unsupported \`${p.kl}\` region (kl) parameter.` });
    const { api_key: _key, ...logged } = p;
    searches.push(logged);
    const results = opts.results(p.q, p.kl, base);
    const metadata = { id: `double-${searches.length}`, status: "Success", json_endpoint: `${base}/searches/double.json` };
    if (results.length === 0) return send(res, 200, { search_metadata: metadata, search_parameters: logged, error: "DuckDuckGo hasn't returned any results for this query." });
    send(res, 200, { search_metadata: metadata, search_parameters: logged, organic_results: results.map((r, i) => ({ position: i + 1, ...r, favicon: `${base}/favicon.ico` })) });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return { url: base, searches, rateLimitNext: (n) => void (limited = n), close: () => new Promise((r) => server.close(() => r())) };
}
