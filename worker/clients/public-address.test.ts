import { describe, expect, it } from "vitest";
import { isNonPublicAddress, publicUrlProblem } from "./public-address";
import { createSearchTransport } from "./search-node";

describe("the public-address rule for a model's page fetches", () => {
  it("tells public addresses from loopback, private, link-local, shared, multicast and mapped ones", () => {
    for (const a of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fd00::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"]) {
      expect(isNonPublicAddress(a), a).toBe(true);
    }
    for (const a of ["8.8.8.8", "172.32.0.1", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8"]) expect(isNonPublicAddress(a), a).toBe(false);
    expect(isNonPublicAddress("not-an-ip")).toBe(true);
  });

  it("names the address a host resolves to, and refuses other schemes", async () => {
    const resolve = async (host: string) => (host === "intranet.example" ? ["8.8.8.8", "10.0.0.7"] : ["93.184.216.34"]);
    expect(await publicUrlProblem("https://example.org/a", resolve)).toBeNull();
    expect(await publicUrlProblem("http://intranet.example/x", resolve)).toBe(
      "refused to fetch intranet.example: it resolves to 10.0.0.7, not a public internet address (set ENVACE_WEB_FETCH_ALLOW_PRIVATE=1 to allow)",
    );
    expect(await publicUrlProblem("http://169.254.169.254/latest/meta-data/", resolve)).toMatch(/^refused to fetch 169\.254\.169\.254: it is not a public internet address/);
    expect(await publicUrlProblem("http://[::1]:5432/", resolve)).toMatch(/^refused to fetch \[::1\]:5432: it is not a public/);
    expect(await publicUrlProblem("file:///etc/passwd", resolve)).toBe("only http and https URLs are fetched (got file:)");
  });

  it("checks every redirect hop: a public page that redirects to the metadata service is not followed", async () => {
    const requested: string[] = [];
    const fetchImpl = (async (url: string) => {
      requested.push(url);
      return url.startsWith("https://public.example/")
        ? new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } })
        : new Response("secret", { status: 200 });
    }) as unknown as typeof fetch;
    const transport = createSearchTransport({ baseUrl: "http://search.example", nodeName: "serp", fetchImpl, resolve: async () => ["93.184.216.34"] });
    const page = await transport.fetchPage("https://public.example/start");
    expect(page).toEqual({ exception: expect.stringMatching(/^refused to fetch 169\.254\.169\.254: it is not a public internet address/) });
    expect(requested).toEqual(["https://public.example/start"]);

    // A public redirect target is followed, and the page reports where it ended.
    const hops = (async (url: string) =>
      url.endsWith("/start") ? new Response(null, { status: 301, headers: { location: "/final" } }) : new Response("<p>ok</p>", { status: 200 })) as unknown as typeof fetch;
    const followed = await createSearchTransport({ baseUrl: "http://search.example", nodeName: "serp", fetchImpl: hops, resolve: async () => ["93.184.216.34"] }).fetchPage("https://public.example/start");
    expect(followed).toMatchObject({ url: "https://public.example/final", status: 200, text: "<p>ok</p>" });
  });
});
