/**
 * Node base URLs: parsed once and stored in one normal form, and every request to a node built by
 * joining path segments onto that form — never by pasting strings onto what a user typed, so a base URL
 * like `http://host/x?y=` cannot turn `/v1/models` into a query (`/x?y=/v1/models`).
 *
 * The normal form: `http(s)://host[:port][/path]`, scheme and host lower-cased, dot segments resolved, no
 * trailing slash, no user name or password (every viewer sees node URLs; the secret belongs in the API
 * key), no query and no fragment. Pure.
 */

export type NodeUrlResult = { ok: true; url: string } | { ok: false; message: string };

/** Parse and normalise a base URL as typed; the message says what to change. */
export function normaliseNodeUrl(text: string): NodeUrlResult {
  const raw = text.trim();
  if (!URL.canParse(raw)) return { ok: false, message: "must be a URL like http://host:8000" };
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, message: "must be http(s)" };
  if (!url.hostname) return { ok: false, message: "must name a host, like http://host:8000" };
  if (url.username || url.password) {
    return { ok: false, message: "must not contain a user name or password (everyone who can see nodes sees the URL); put the secret in the API key field" };
  }
  // `?` or `#` with nothing after them still end the path: refuse them as written, not only when non-empty.
  const afterHost = raw.slice(raw.indexOf("//") + 2);
  if (url.search || afterHost.includes("?")) return { ok: false, message: "must not have a query (?…): the node's paths are added to it" };
  if (url.hash || afterHost.includes("#")) return { ok: false, message: "must not have a fragment (#…)" };
  const path = url.pathname.replace(/\/+$/, "");
  return { ok: true, url: `${url.protocol}//${url.host}${path}` };
}

/** The stored base URL as the normal form, or an error naming the node (a row stored before URLs were checked). */
export function nodeBaseUrl(baseUrl: string, nodeName?: string): string {
  const parsed = normaliseNodeUrl(baseUrl);
  if (!parsed.ok) throw new Error(`${nodeName ? `node "${nodeName}": ` : ""}its base URL ${parsed.message}; an admin must edit the node`);
  return parsed.url;
}

/**
 * `base` + path segments, each encoded as one segment: `nodeEndpoint("http://h:8000/x", "v1", "models")`
 * → `http://h:8000/x/v1/models`. A segment may hold "/" to add several at once ("api/v1/healthz"); none
 * may be empty, "." or "..".
 */
export function nodeEndpoint(base: string, ...segments: string[]): string {
  const url = new URL(nodeBaseUrl(base));
  const parts = segments.flatMap((s) => s.split("/"));
  for (const p of parts) if (p === "" || p === "." || p === "..") throw new Error(`not a path segment: ${JSON.stringify(p)}`);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${parts.map(encodeURIComponent).join("/")}`;
  return url.href;
}
