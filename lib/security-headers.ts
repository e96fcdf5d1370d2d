/**
 * The browser's security headers, one description for every response of the web process. Pages get
 * theirs per request from proxy.ts (the Content-Security-Policy carries a fresh nonce, which Next.js
 * reads from the request's policy and puts on every script it writes); every other response (the API,
 * static files) gets the fixed ones from next.config.ts. Pure.
 *
 * - Scripts only from this server, and inline only with the request's nonce ('strict-dynamic': what
 *   those scripts load is trusted, nothing else). No eval outside `next dev`.
 * - Styles from this server (the app's and KaTeX's stylesheets, KaTeX's fonts), inline <style> only
 *   with the nonce; style attributes are allowed (KaTeX lays formulas out with them; they run no code).
 * - Images from this server, data: and blob: URLs (charts, the exported figures), and from other hosts
 *   only when an admin allows them for report notes (contracts/app-settings.ts).
 * - Connections (tRPC, the event stream) to this server only; no plugins, no <base>, forms post here.
 * - Never framed (`frame-ancestors 'none'` and X-Frame-Options DENY), no MIME sniffing, no referrer to
 *   other sites (none at all from a share link, whose URL is its secret), HSTS over HTTPS.
 */

export interface PagePolicyOptions {
  nonce: string;
  /** Report notes may show images from other hosts (the admin's setting). */
  imagesFromOtherHosts: boolean;
  /** Served over HTTPS (directly, or behind a trusted proxy that said so): HSTS and upgrade-insecure-requests. */
  https: boolean;
  /** `next dev` needs eval for its error overlay and fast refresh. */
  dev?: boolean;
}

/** The request header by which proxy.ts tells the page what its policy allows (never the client's). */
export const IMAGES_FROM_OTHER_HOSTS_HEADER = "x-envace-images-other-hosts";

/** HSTS: a year, this host only (other services on subdomains are not ours to decide for). */
export const HSTS = "max-age=31536000";

/** A fresh nonce: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** The Content-Security-Policy of a page. */
export function pageCsp(o: PagePolicyOptions): string {
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    ["script-src", "'self'", `'nonce-${o.nonce}'`, "'strict-dynamic'", ...(o.dev ? ["'unsafe-eval'"] : [])],
    // `next dev` injects styles without the nonce (and a nonce would make browsers ignore 'unsafe-inline').
    ["style-src", "'self'", ...(o.dev ? ["'unsafe-inline'"] : [`'nonce-${o.nonce}'`])],
    ["style-src-attr", "'unsafe-inline'"],
    ["img-src", "'self'", "data:", "blob:", ...(o.imagesFromOtherHosts ? ["https:", "http:"] : [])],
    ["font-src", "'self'", "data:"],
    ["connect-src", "'self'", ...(o.dev ? ["ws:", "wss:"] : [])],
    ["media-src", "'self'"],
    ["worker-src", "'self'", "blob:"],
    ["object-src", "'none'"],
    ["base-uri", "'none'"],
    ["form-action", "'self'"],
    ["frame-src", "'none'"],
    ["frame-ancestors", "'none'"],
  ];
  if (o.https) directives.push(["upgrade-insecure-requests"]);
  return directives.map((d) => d.join(" ")).join("; ");
}

/** A policy for what is not a page (JSON, files): it loads nothing and is never framed. */
export const NON_PAGE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The headers every response carries, pages or not. */
export const COMMON_HEADERS: Record<string, string> = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
};

/** The headers of one page response. */
export function pageHeaders(o: PagePolicyOptions & { pathname: string }): Record<string, string> {
  const share = o.pathname === "/share" || o.pathname.startsWith("/share/");
  return {
    ...COMMON_HEADERS,
    "Content-Security-Policy": pageCsp(o),
    // A share link's URL is its secret: never sent on, never indexed (as its page's meta tags say).
    ...(share ? { "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow" } : {}),
    ...(o.https ? { "Strict-Transport-Security": HSTS } : {}),
  };
}

/**
 * Whether the request came over HTTPS: the URL Next.js resolved (TLS on the socket), or X-Forwarded-Proto
 * — which the web server (scripts/web.ts, lib/client-address.ts) keeps only from a trusted proxy. Under a
 * bare `next start` a client could claim it, which earns it HSTS over plain HTTP: ignored by browsers.
 */
export function servedOverHttps(url: string, forwardedProto: string | null): boolean {
  if (url.startsWith("https:")) return true;
  return (forwardedProto ?? "").split(",")[0]!.trim().toLowerCase() === "https";
}
