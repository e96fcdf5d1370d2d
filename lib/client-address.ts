/**
 * The real client address of an HTTP request. Forwarding headers (X-Forwarded-For) are trusted only when
 * the connection comes from a configured trusted proxy (ENVACE_TRUSTED_PROXIES: IPs or CIDR ranges);
 * otherwise anyone could claim any address and walk around per-address limits.
 */
import net from "node:net";

/** Set by the web server (scripts/web.ts) on every request: the resolved client address, never the caller's. */
export const CLIENT_ADDRESS_HEADER = "x-envace-client-ip";

export interface Cidr {
  text: string;
  bytes: Uint8Array;
  prefix: number;
}

/** "::ffff:1.2.3.4" → "1.2.3.4"; lower-case IPv6; null when not an IP address. */
export function normaliseIp(value: string): string | null {
  const v = value.trim().replace(/^\[(.*)\]$/, "$1");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(v);
  if (mapped && net.isIPv4(mapped[1]!)) return mapped[1]!;
  if (net.isIPv4(v)) return v;
  if (net.isIPv6(v)) return v.toLowerCase();
  return null;
}

function ipBytes(ip: string): Uint8Array {
  if (net.isIPv4(ip)) return Uint8Array.from(ip.split(".").map(Number));
  // Expand "a::b" into eight groups.
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = head ? head.split(":") : [];
  const t = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = Number.parseInt(g, 16);
    out[i * 2] = (n >> 8) & 255;
    out[i * 2 + 1] = n & 255;
  });
  return out;
}

/**
 * Parse ENVACE_TRUSTED_PROXIES ("127.0.0.1, 10.0.0.0/8, ::1"). Throws one line naming the bad entry, so a
 * typo stops the start instead of silently trusting nobody (or everybody).
 */
export function parseTrustedProxies(value: string | undefined): Cidr[] {
  if (!value?.trim()) return [];
  return value
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry) => {
      const [addr, prefixText] = entry.split("/");
      const ip = normaliseIp(addr ?? "");
      const max = ip && net.isIPv4(ip) ? 32 : 128;
      const prefix = prefixText === undefined ? max : /^\d+$/.test(prefixText) ? Number(prefixText) : NaN;
      if (!ip || !(prefix >= 0 && prefix <= max)) {
        throw new Error(`ENVACE_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8)`);
      }
      return { text: entry, bytes: ipBytes(ip), prefix };
    });
}

export function isTrusted(ip: string, trusted: Cidr[]): boolean {
  const bytes = ipBytes(ip);
  return trusted.some((c) => {
    if (c.bytes.length !== bytes.length) return false;
    let bits = c.prefix;
    for (let i = 0; i < bytes.length && bits > 0; i++, bits -= 8) {
      const mask = bits >= 8 ? 255 : (255 << (8 - bits)) & 255;
      if ((bytes[i]! & mask) !== (c.bytes[i]! & mask)) return false;
    }
    return true;
  });
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy; then X-Forwarded-For is
 * read from the right (the hop our proxy appended) past every trusted hop to the first untrusted one.
 */
export function resolveClientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: Cidr[]): string {
  const socketIp = normaliseIp(peer ?? "") ?? "unknown";
  if (socketIp === "unknown" || trusted.length === 0 || !isTrusted(socketIp, trusted)) return socketIp;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  const hops = header.split(",").map((h) => h.trim()).filter(Boolean);
  let client = socketIp;
  for (let i = hops.length - 1; i >= 0; i--) {
    const ip = normaliseIp(hops[i]!);
    if (!ip) break; // garbage further left was written by the client: stop at the last hop we trust
    client = ip;
    if (!isTrusted(ip, trusted)) break;
  }
  return client;
}

/** The parts of a node:http request this needs. */
export interface IncomingLike {
  socket: { remoteAddress?: string };
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Rewrite a request's headers in place so everything downstream sees the real client: CLIENT_ADDRESS_HEADER
 * and X-Forwarded-For carry the resolved address, and the other X-Forwarded-* headers survive only from a
 * trusted proxy. Returns the address.
 */
export function applyClientAddress(req: IncomingLike, trusted: Cidr[]): string {
  const client = resolveClientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], trusted);
  const peer = normaliseIp(req.socket.remoteAddress ?? "");
  if (!peer || !isTrusted(peer, trusted)) {
    delete req.headers["x-forwarded-host"];
    delete req.headers["x-forwarded-proto"];
    delete req.headers["x-forwarded-port"];
  }
  req.headers[CLIENT_ADDRESS_HEADER] = client;
  req.headers["x-forwarded-for"] = client;
  return client;
}
