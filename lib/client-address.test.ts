import { describe, expect, it } from "vitest";
import { applyClientAddress, CLIENT_ADDRESS_HEADER, isTrusted, normaliseIp, parseTrustedProxies, resolveClientAddress } from "./client-address";

describe("normaliseIp", () => {
  it("unwraps IPv4-mapped IPv6 and brackets, lower-cases IPv6, rejects non-addresses", () => {
    expect(normaliseIp("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(normaliseIp("[2001:DB8::1]")).toBe("2001:db8::1");
    expect(normaliseIp("unknown")).toBeNull();
    expect(normaliseIp("10.0.0.1, 10.0.0.2")).toBeNull();
  });
});

describe("parseTrustedProxies", () => {
  it("reads IPs and CIDR ranges of both families", () => {
    const trusted = parseTrustedProxies(" 127.0.0.1, 10.0.0.0/8 ,fd00::/8");
    expect(trusted.map((c) => c.prefix)).toEqual([32, 8, 8]);
    expect(isTrusted("10.200.3.4", trusted)).toBe(true);
    expect(isTrusted("11.0.0.1", trusted)).toBe(false);
    expect(isTrusted("fd12:3456::1", trusted)).toBe(true);
    expect(isTrusted("2001:db8::1", trusted)).toBe(false);
    expect(isTrusted("127.0.0.2", trusted)).toBe(false);
  });

  it("refuses a malformed entry with one line naming it", () => {
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow('ENVACE_TRUSTED_PROXIES: "10.0.0.0/33" is not an IP address or CIDR range');
    expect(() => parseTrustedProxies("proxy.local")).toThrow(/"proxy.local"/);
  });

  it("is empty when unset", () => {
    expect(parseTrustedProxies(undefined)).toEqual([]);
    expect(parseTrustedProxies("  ")).toEqual([]);
  });
});

describe("resolveClientAddress", () => {
  const proxy = parseTrustedProxies("10.0.0.5");

  it("ignores X-Forwarded-For unless the connection comes from a trusted proxy", () => {
    expect(resolveClientAddress("203.0.113.9", "1.2.3.4", [])).toBe("203.0.113.9");
    expect(resolveClientAddress("203.0.113.9", "1.2.3.4", proxy)).toBe("203.0.113.9");
    expect(resolveClientAddress("::ffff:127.0.0.1", "1.2.3.4", [])).toBe("127.0.0.1");
  });

  it("behind a trusted proxy, takes the hop the proxy appended, not what the client wrote to the left", () => {
    // The client sent "X-Forwarded-For: 6.6.6.6"; the proxy appended the address it saw.
    expect(resolveClientAddress("10.0.0.5", "6.6.6.6, 198.51.100.7", proxy)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.5", ["6.6.6.6", "198.51.100.7"], proxy)).toBe("198.51.100.7");
  });

  it("skips every trusted hop of a proxy chain", () => {
    const chain = parseTrustedProxies("10.0.0.0/8");
    expect(resolveClientAddress("10.0.0.5", "198.51.100.7, 10.1.1.1, 10.2.2.2", chain)).toBe("198.51.100.7");
  });

  it("stops at garbage and at a missing header", () => {
    expect(resolveClientAddress("10.0.0.5", "not-an-ip, 198.51.100.7", proxy)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.5", "198.51.100.7, garbage", proxy)).toBe("10.0.0.5");
    expect(resolveClientAddress("10.0.0.5", undefined, proxy)).toBe("10.0.0.5");
  });
});

describe("applyClientAddress", () => {
  it("overwrites the address headers and drops forwarding claims from untrusted peers", () => {
    const req = {
      socket: { remoteAddress: "203.0.113.9" },
      headers: { "x-forwarded-for": "1.2.3.4", [CLIENT_ADDRESS_HEADER]: "5.6.7.8", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" } as Record<string, string | string[] | undefined>,
    };
    expect(applyClientAddress(req, [])).toBe("203.0.113.9");
    expect(req.headers).toEqual({ "x-forwarded-for": "203.0.113.9", [CLIENT_ADDRESS_HEADER]: "203.0.113.9" });
  });

  it("keeps a trusted proxy's forwarding headers", () => {
    const req = { socket: { remoteAddress: "10.0.0.5" }, headers: { "x-forwarded-for": "198.51.100.7", "x-forwarded-proto": "https" } as Record<string, string | string[] | undefined> };
    applyClientAddress(req, parseTrustedProxies("10.0.0.5"));
    expect(req.headers).toMatchObject({ "x-forwarded-for": "198.51.100.7", [CLIENT_ADDRESS_HEADER]: "198.51.100.7", "x-forwarded-proto": "https" });
  });
});
