import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSearchDouble, type SearchDouble } from "../../../../test/doubles/search-node";
import { createSearchTransport, SearchRateLimited } from "../../../clients/search-node";
import { NO_RESULTS_ERROR, WebSearchApi } from "./api";
import { htmlToMarkdown, htmlToText } from "./html";

const PAGE = `<!doctype html><html><head><title>Tea</title><style>p{color:red}</style><script>var x = 1;</script></head>
<body><!-- note --><h1>Da Hong Pao</h1><p>The most <b>expensive</b> tea, from <a href="https://en.wikipedia.org/wiki/Fujian">Fujian</a>.</p>
<ul><li>China</li><li>Wuyi   Mountains</li></ul></body></html>`;

let double: SearchDouble;
let api: WebSearchApi;
let noSnippet: WebSearchApi;
let noSleep: number[];

beforeAll(async () => {
  double = await startSearchDouble({
    apiKey: "serp-key",
    pages: { tea: PAGE },
    results: (q, _kl, base) =>
      q === "nothing"
        ? []
        : Array.from({ length: 12 }, (_, i) => ({ title: `${q} ${i}`, link: `${base}/pages/tea`, snippet: `about ${q} (${i})` })),
  });
  noSleep = [];
  const transport = createSearchTransport({ baseUrl: double.url, apiKey: "serp-key", nodeName: "serp", maxRateLimitRetries: 2, sleep: async (ms) => void noSleep.push(ms), allowPrivateAddresses: true });
  api = new WebSearchApi(transport, true);
  noSnippet = new WebSearchApi(transport, false);
});
afterAll(() => double.close());

describe("WebSearchAPI.search_engine_query (SerpAPI's duckduckgo engine)", () => {
  it("sends upstream's parameters and returns title/href/body as str(list)", async () => {
    const text = await api.execute("search_engine_query", JSON.stringify({ keywords: "expensive tea", max_results: 2 }));
    expect(text).toBe(
      `[{'title': 'expensive tea 0', 'href': '${double.url}/pages/tea', 'body': 'about expensive tea (0)'}, {'title': 'expensive tea 1', 'href': '${double.url}/pages/tea', 'body': 'about expensive tea (1)'}]`,
    );
    expect(double.searches.at(-1)).toEqual({ engine: "duckduckgo", q: "expensive tea", kl: "wt-wt", output: "json" });
    // the default max_results is 10
    expect((await api.execute("search_engine_query", '{"keywords": "tea"}')).match(/'title'/g)).toHaveLength(10);
  });

  it("leaves the snippet out in web_search_no_snippet", async () => {
    expect(await noSnippet.execute("search_engine_query", '{"keywords": "tea", "max_results": 1, "region": "uk-en"}')).toBe(`[{'title': 'tea 0', 'href': '${double.url}/pages/tea'}]`);
    expect(double.searches.at(-1)?.kl).toBe("uk-en");
  });

  it("answers errors as upstream does", async () => {
    expect(await api.execute("search_engine_query", '{"keywords": "nothing"}')).toBe(`{"error": "${NO_RESULTS_ERROR}"}`);
    expect(await api.execute("search_engine_query", "{}")).toBe("Error during execution: WebSearchAPI.search_engine_query() missing 1 required positional argument: 'keywords'");
    expect(await api.execute("search_engine_query", '{"keywords": "a", "page": 2}')).toBe("Error during execution: WebSearchAPI.search_engine_query() got an unexpected keyword argument 'page'");
    expect(await api.execute("search_engine_query", '{"keywords": "a", "max_results": "3"}')).toBe("Error during execution: slice indices must be integers or None or have an __index__ method");
    expect(await api.execute("web_search", '{"keywords": "a"}')).toBe("Error during execution: name 'web_search' is not defined");
    // a key the search node refuses: SerpAPI's error body has no organic_results
    const badKey = new WebSearchApi(createSearchTransport({ baseUrl: double.url, apiKey: "wrong", nodeName: "serp" }), true);
    expect(await badKey.execute("search_engine_query", '{"keywords": "tea"}')).toBe(`{"error": "${NO_RESULTS_ERROR}"}`);
  });

  it("retries a 429 with upstream's backoff, then fails the environment past the limit", async () => {
    double.rateLimitNext(2);
    expect(await api.execute("search_engine_query", '{"keywords": "tea", "max_results": 1}')).toContain("'title': 'tea 0'");
    expect(noSleep).toHaveLength(2);
    expect(noSleep[0]).toBeGreaterThanOrEqual(2000);
    expect(noSleep[1]).toBeGreaterThanOrEqual(4000);
    double.rateLimitNext(5);
    await expect(api.execute("search_engine_query", '{"keywords": "tea"}')).rejects.toThrow(SearchRateLimited);
    double.rateLimitNext(0);
  });
});

describe("WebSearchAPI.fetch_url_content", () => {
  it("returns the raw page, its text (truncate) or markdown", async () => {
    const url = `${double.url}/pages/tea`;
    expect(JSON.parse(await api.execute("fetch_url_content", JSON.stringify({ url }))).content).toBe(PAGE);
    expect(JSON.parse(await api.execute("fetch_url_content", JSON.stringify({ url, mode: "truncate" }))).content).toBe(
      "Tea\nDa Hong Pao\nThe most\nexpensive\ntea, from\nFujian\n.\nChina\nWuyi   Mountains",
    );
    expect(JSON.parse(await api.execute("fetch_url_content", JSON.stringify({ url: `${double.url}/redirect/tea`, mode: "markdown" }))).content).toBe(
      "# Da Hong Pao\n\nThe most **expensive** tea, from [Fujian](https://en.wikipedia.org/wiki/Fujian).\n\n  * China\n  * Wuyi Mountains\n\n",
    );
  });

  it("answers errors as upstream does", async () => {
    expect(await api.execute("fetch_url_content", '{"url": "ftp://x"}')).toBe("Error during execution: Invalid URL: ftp://x");
    expect(await api.execute("fetch_url_content", `{"url": "${double.url}/pages/none"}`)).toBe(
      `{"error": "An error occurred while fetching ${double.url}/pages/none: 404 Client Error: Not Found for url: ${double.url}/pages/none"}`,
    );
    expect(await api.execute("fetch_url_content", `{"url": "${double.url}/pages/tea", "mode": "pdf"}`)).toBe(`{"error": "An error occurred while fetching ${double.url}/pages/tea: Unsupported mode: pdf"}`);
    expect(await api.execute("fetch_url_content", '{"url": "http://127.0.0.1:1/"}')).toMatch(/^\{"error": "An error occurred while fetching http:\/\/127\.0\.0\.1:1\/: .+"\}$/);
  });

  it("converts HTML like BeautifulSoup's get_text and html2text's rules", () => {
    expect(htmlToText("<p> a <i>b</i></p><!--c--><pre>  d  </pre>")).toBe("a\nb\nd");
    expect(htmlToMarkdown("<h2>T</h2><ol><li>x</li><li>y</li></ol><blockquote>q</blockquote><hr><img src='i.png' alt='pic'>")).toBe("## T\n\n  1. x\n  2. y\n\n> q\n\n* * *\n\n![pic](i.png)\n\n");
  });
});
