import { describe, expect, it } from "vitest";
import { newNonce, pageCsp, pageHeaders, servedOverHttps } from "./security-headers";

const directives = (csp: string) => Object.fromEntries(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));

describe("security headers", () => {
  it("a page's policy: scripts from here with the nonce only, no framing, images from here unless an admin allows others", () => {
    const csp = directives(pageCsp({ nonce: "abc", imagesFromOtherHosts: false, https: false }));
    expect(csp["script-src"]).toEqual(["'self'", "'nonce-abc'", "'strict-dynamic'"]);
    expect(csp["script-src"]).not.toContain("'unsafe-inline'");
    expect(csp["style-src"]).toEqual(["'self'", "'nonce-abc'"]);
    expect(csp["img-src"]).toEqual(["'self'", "data:", "blob:"]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp["object-src"]).toEqual(["'none'"]);
    expect(csp["base-uri"]).toEqual(["'none'"]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(csp["upgrade-insecure-requests"]).toBeUndefined();
    const open = directives(pageCsp({ nonce: "abc", imagesFromOtherHosts: true, https: true }));
    expect(open["img-src"]).toEqual(["'self'", "data:", "blob:", "https:", "http:"]);
    expect(open["upgrade-insecure-requests"]).toEqual([]);
    const dev = directives(pageCsp({ nonce: "n", imagesFromOtherHosts: false, https: false, dev: true }));
    expect(dev["script-src"]).toContain("'unsafe-eval'");
    expect(dev["style-src"]).toEqual(["'self'", "'unsafe-inline'"]);
  });

  it("headers per page: never framed, no sniffing, no referrer elsewhere (none at all from a share link), HSTS over HTTPS", () => {
    const page = pageHeaders({ nonce: "n", imagesFromOtherHosts: false, https: false, pathname: "/settings" });
    expect(page).toMatchObject({ "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin" });
    expect(page["Strict-Transport-Security"]).toBeUndefined();
    const share = pageHeaders({ nonce: "n", imagesFromOtherHosts: false, https: true, pathname: "/share/abc" });
    expect(share).toMatchObject({ "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex, nofollow", "Strict-Transport-Security": "max-age=31536000" });
  });

  it("fresh nonces; HTTPS from the URL or a forwarded proto", () => {
    const a = newNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(newNonce()).not.toBe(a);
    expect(servedOverHttps("https://x/", null)).toBe(true);
    expect(servedOverHttps("http://x/", "https")).toBe(true);
    expect(servedOverHttps("http://x/", "https, http")).toBe(true);
    expect(servedOverHttps("http://x/", "http")).toBe(false);
    expect(servedOverHttps("http://x/", null)).toBe(false);
  });
});
