import { describe, expect, it } from "vitest";
import { nodeBaseUrl, nodeEndpoint, normaliseNodeUrl } from "./node-url";

describe("node base URLs", () => {
  it("normalises: lower-case scheme and host, dot segments resolved, no trailing slash, default port dropped", () => {
    expect(normaliseNodeUrl(" HTTP://GPU-1:8000/ ")).toEqual({ ok: true, url: "http://gpu-1:8000" });
    expect(normaliseNodeUrl("https://api.example.org:443/a/./b/../v1//")).toEqual({ ok: true, url: "https://api.example.org/a/v1" });
    expect(normaliseNodeUrl("http://[::1]:8000/x")).toEqual({ ok: true, url: "http://[::1]:8000/x" });
    expect(normaliseNodeUrl("http://h/%2e%2e/v1")).toEqual({ ok: true, url: "http://h/v1" });
  });

  it("refuses other schemes, credentials, queries and fragments, saying what to change", () => {
    const message = (u: string) => (normaliseNodeUrl(u) as { message?: string }).message;
    expect(message("ftp://h/")).toBe("must be http(s)");
    expect(message("javascript:alert(1)")).toBe("must be http(s)");
    expect(message("nope")).toMatch(/must be a URL/);
    expect(message("http://u:p@h/")).toMatch(/must not contain a user name or password/);
    expect(message("http://127.0.0.1:9911/arbitrary?x=")).toMatch(/must not have a query/);
    expect(message("http://h/?")).toMatch(/must not have a query/);
    expect(message("http://h/#")).toMatch(/must not have a fragment/);
    expect(message("http://h/x#y")).toMatch(/must not have a fragment/);
  });

  it("joins path segments onto the base, never pasting text", () => {
    expect(nodeEndpoint("http://h:8000", "v1", "models")).toBe("http://h:8000/v1/models");
    expect(nodeEndpoint("http://h:8000/prefix/", "api/v1/healthz")).toBe("http://h:8000/prefix/api/v1/healthz");
    expect(nodeEndpoint("http://h:8000", "api/v1", "a b?c")).toBe("http://h:8000/api/v1/a%20b%3Fc");
    expect(() => nodeEndpoint("http://h", "..", "x")).toThrow(/not a path segment/);
    expect(() => nodeEndpoint("http://127.0.0.1:9911/arbitrary?x=", "v1/models")).toThrow(/its base URL must not have a query .*an admin must edit the node/);
    expect(() => nodeBaseUrl("http://h/#x", "gpu")).toThrow(/^node "gpu": its base URL must not have a fragment/);
  });
});
