/**
 * Port of BFCL's `WebSearchAPI` (web_search.py): `search_engine_query(keywords, max_results=10,
 * region="wt-wt")` and `fetch_url_content(url, mode="raw")`, returning what upstream returns, turned into
 * the text upstream's executor gives the model (a list through `str()`, a dict through `json.dumps`, an
 * exception as `Error during execution: …`).
 *
 * The search goes to a search node in SerpAPI's shape (`engine=duckduckgo`, `q`, `kl`, `api_key`; the
 * results' `organic_results[].title|link|snippet`), the page fetch to the page itself; both are injected
 * (`WebSearchTransport`), so this module has no network of its own and tests drive it with doubles.
 */
import { PyDict, pyStr, pyTypeName, PyException, fromPlainJson, pyFromJsonText, type PyValue } from "../../../../lib/python/values";
import { errorText, resultText } from "../execute";
import { htmlToMarkdown, htmlToText } from "./html";

/** SerpAPI's request parameters as upstream sends them (`api_key` is added by the transport). */
export interface SearchParams {
  engine: "duckduckgo";
  q: string;
  /** Absent when the model passed `region=None` (requests drops None parameters). */
  kl?: string;
}

/** What a search returned: the decoded JSON body, or the text of the exception the client raised. */
export type SearchOutcome = { body: unknown } | { exception: string };

/** A fetched page: the final URL and status after redirects and the body text; or the exception's text. */
export type PageOutcome = { url: string; status: number; reason: string; text: string } | { exception: string };

export interface WebSearchTransport {
  search(params: SearchParams): Promise<SearchOutcome>;
  fetchPage(url: string): Promise<PageOutcome>;
}

/** The error upstream returns when the search answer has no `organic_results`. */
export const NO_RESULTS_ERROR = "Failed to retrieve the search results from server. Please try again later.";

const METHODS = {
  search_engine_query: [{ name: "keywords" }, { name: "max_results", default: 10n as PyValue }, { name: "region", default: "wt-wt" as PyValue }],
  fetch_url_content: [{ name: "url" }, { name: "mode", default: "raw" as PyValue }],
} as const;
type Method = keyof typeof METHODS;
export const WEB_SEARCH_METHODS = Object.keys(METHODS) as Method[];

/** `seq[:k]` with Python's slice rules. */
function sliceTo<T>(items: T[], k: PyValue): T[] {
  if (k === null) return items;
  if (typeof k !== "bigint" && typeof k !== "boolean") throw new PyException("TypeError", "slice indices must be integers or None or have an __index__ method");
  const n = Number(typeof k === "boolean" ? (k ? 1n : 0n) : k);
  return n >= 0 ? items.slice(0, n) : items.slice(0, Math.max(0, items.length + n));
}

/** A result's field as Python's `result["title"]` reads it (a missing key is a KeyError, which upstream does not catch). */
function field(result: unknown, key: string): PyValue {
  if (result === null || typeof result !== "object" || Array.isArray(result)) throw new PyException("TypeError", `${JSON.stringify(key)} indices must be integers`);
  if (!Object.hasOwn(result, key)) throw new PyException("KeyError", `'${key}'`);
  return fromPlainJson((result as Record<string, unknown>)[key]);
}

export class WebSearchApi {
  readonly className = "WebSearchAPI";

  constructor(
    private readonly transport: WebSearchTransport,
    /** `initial_config.WebSearchAPI.show_snippet` (false in web_search_no_snippet). */
    readonly showSnippet: boolean,
  ) {}

  methodNames(): string[] {
    return [...WEB_SEARCH_METHODS];
  }

  async searchEngineQuery(keywords: PyValue, maxResults: PyValue, region: PyValue): Promise<PyValue> {
    const params: SearchParams = { engine: "duckduckgo", q: pyStr(keywords), ...(region === null ? {} : { kl: pyStr(region) }) };
    const outcome = await this.transport.search(params);
    if ("exception" in outcome) return PyDict.fromObject({ error: outcome.exception });
    const body = outcome.body;
    if (body === null || typeof body !== "object" || Array.isArray(body) || !Object.hasOwn(body, "organic_results")) return PyDict.fromObject({ error: NO_RESULTS_ERROR });
    const organic = (body as { organic_results: unknown }).organic_results;
    if (!Array.isArray(organic)) throw new PyException("TypeError", `'${typeof organic}' object is not subscriptable`);
    return sliceTo(organic, maxResults).map((r) =>
      PyDict.fromObject(this.showSnippet ? { title: field(r, "title"), href: field(r, "link"), body: field(r, "snippet") } : { title: field(r, "title"), href: field(r, "link") }),
    );
  }

  async fetchUrlContent(url: PyValue, mode: PyValue): Promise<PyValue> {
    if (typeof url !== "string") throw new PyException("AttributeError", `'${pyTypeName(url)}' object has no attribute 'startswith'`);
    if (!url.startsWith("http://") && !url.startsWith("https://")) throw new PyException("ValueError", `Invalid URL: ${url}`);
    const page = await this.transport.fetchPage(url);
    const failed = (message: string) => PyDict.fromObject({ error: `An error occurred while fetching ${url}: ${message}` });
    if ("exception" in page) return failed(page.exception);
    // requests' raise_for_status()
    if (page.status >= 400 && page.status < 600) return failed(`${page.status} ${page.status < 500 ? "Client" : "Server"} Error: ${page.reason} for url: ${page.url}`);
    if (mode === "raw") return PyDict.fromObject({ content: page.text });
    if (mode === "markdown") return PyDict.fromObject({ content: htmlToMarkdown(page.text) });
    if (mode === "truncate") return PyDict.fromObject({ content: htmlToText(page.text) });
    return failed(`Unsupported mode: ${pyStr(mode)}`);
  }

  /** Calls a method with keyword arguments bound as CPython 3.11 binds them. */
  async call(name: string, kwargs: readonly [string, PyValue][]): Promise<PyValue> {
    const params = METHODS[name as Method];
    if (!params) throw new PyException("NameError", `name '${name}' is not defined`);
    const qual = `${this.className}.${name}()`;
    const bound = new Map<string, PyValue>();
    for (const [key, value] of kwargs) {
      if (!params.some((p) => p.name === key)) throw new PyException("TypeError", `${qual} got an unexpected keyword argument '${key}'`);
      bound.set(key, value);
    }
    const missing = params.filter((p) => !bound.has(p.name) && !("default" in p)).map((p) => `'${p.name}'`);
    if (missing.length) throw new PyException("TypeError", `${qual} missing ${missing.length} required positional argument${missing.length === 1 ? "" : "s"}: ${missing.join(" and ")}`);
    const arg = (i: number) => (bound.has(params[i].name) ? bound.get(params[i].name)! : (params[i] as { default: PyValue }).default);
    return name === "search_engine_query" ? this.searchEngineQuery(arg(0), arg(1), arg(2)) : this.fetchUrlContent(arg(0), arg(1));
  }

  /**
   * A tool call (JSON arguments) → the text upstream's executor returns. Arguments that are not a JSON
   * object are answered as the multi-turn executor answers them (`invalid`, from run/multi-turn.ts).
   */
  async execute(name: string, argumentsJson: string, invalid?: string): Promise<string> {
    if (invalid !== undefined) return errorText(invalid);
    let args: PyValue;
    try {
      args = argumentsJson.trim() === "" ? new PyDict() : pyFromJsonText(argumentsJson);
    } catch (err) {
      return errorText(`the arguments are not JSON: ${(err as Error).message}`);
    }
    if (!(args instanceof PyDict)) return errorText(`the arguments must be a JSON object, not ${pyTypeName(args)}`);
    try {
      return resultText(await this.call(name, args.entries().map(([k, v]) => [pyStr(k), v] as [string, PyValue])));
    } catch (err) {
      if (err instanceof PyException) return errorText(err.pyMessage);
      throw err;
    }
  }
}
