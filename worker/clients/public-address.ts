/**
 * Fetches of URLs a model chose (BFCL's fetch_url_content) go to the public internet only. The worker runs
 * inside the team's network, next to its database, nodes and cloud metadata service; a URL the model writes
 * must not reach them. A host is refused when it is, or resolves to, a loopback, private, link-local,
 * shared, multicast or otherwise non-public address; redirects are followed by hand so each hop is checked.
 * `ENVACE_WEB_FETCH_ALLOW_PRIVATE=1` lifts the rule (tests with local doubles, a team's own intranet).
 * A name that resolves differently between the check and the request (DNS rebinding) is not covered.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["2001:db8::", 32], ["64:ff9b::", 96]] as const) {
  blocked.addSubnet(net, bits, "ipv6");
}

/** Whether an IP address (v4 or v6, v4-mapped v6 included) is one a model's fetch may not reach. */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, "ipv4");
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) return blocked.check(address, "ipv6");
  return true;
}

export type Resolve = (host: string) => Promise<string[]>;
const resolveAll: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why `url` may not be fetched (null: it may): not http(s), or its host is or resolves to a non-public address. */
export async function publicUrlProblem(url: string, resolve: Resolve = resolveAll): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a URL: ${url}`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `only http and https URLs are fetched (got ${parsed.protocol})`;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await resolve(host).catch((err: Error) => Promise.reject(new Error(`cannot resolve ${host}: ${err.message}`)));
  const inner = addresses.find(isNonPublicAddress);
  return inner === undefined ? null : `refused to fetch ${parsed.host}: ${inner === host ? "it is" : `it resolves to ${inner},`} not a public internet address (set ENVACE_WEB_FETCH_ALLOW_PRIVATE=1 to allow)`;
}

export const allowPrivateFetches = () => process.env.ENVACE_WEB_FETCH_ALLOW_PRIVATE === "1";
