/**
 * AWS Signature Version 4 for S3-compatible object stores (lib/s3-store.ts): the Authorization header of
 * one request, computed from its method, path, query, headers and payload hash. Pure (no I/O); checked
 * against AWS's published examples in s3-sigv4.test.ts. The S3 flavour: the path is used as given
 * (already URI-encoded once, never normalised or encoded twice, as S3 wants).
 */
import crypto from "node:crypto";

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (STS): sent and signed as x-amz-security-token. */
  sessionToken?: string;
}

export interface SigV4Request {
  method: string;
  /** The Host header: host name, and the port when it is not the scheme's default. */
  host: string;
  /** The URI-encoded path, as it goes on the request line (without the query). */
  path: string;
  query?: ReadonlyArray<readonly [string, string]>;
  /** Headers to send and sign (host and x-amz-date are added). */
  headers?: Record<string, string>;
  /** Hex SHA-256 of the body (or UNSIGNED-PAYLOAD). */
  payloadHash: string;
}

export interface SigV4Scope {
  region: string;
  service: string;
  date: Date;
}

export const EMPTY_SHA256 = crypto.createHash("sha256").update("").digest("hex");

/** RFC 3986 percent-encoding (what SigV4 calls UriEncode): everything but A-Z a-z 0-9 - _ . ~ */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An object key as a path: each segment encoded, the slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split("/").map(uriEncode).join("/");
}

/** 20130524T000000Z */
export function amzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

export function canonicalQuery(query: ReadonlyArray<readonly [string, string]>): string {
  return query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

const hmac = (key: crypto.BinaryLike, data: string) => crypto.createHmac("sha256", key).update(data, "utf8").digest();

export function signingKey(secretAccessKey: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), service), "aws4_request");
}

export interface SignedRequest {
  /** Every header to send, the signature's included (authorization, x-amz-date, host, …). */
  headers: Record<string, string>;
  signature: string;
  canonicalRequest: string;
}

export function signV4(req: SigV4Request, credentials: SigV4Credentials, scope: SigV4Scope): SignedRequest {
  const stamp = amzDate(scope.date);
  const day = stamp.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
  headers.host = req.host;
  headers["x-amz-date"] = stamp;
  if (credentials.sessionToken) headers["x-amz-security-token"] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(";");
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, " ")}\n`).join("");
  const canonicalRequest = [req.method.toUpperCase(), req.path || "/", canonicalQuery(req.query ?? []), canonicalHeaders, signedHeaders, req.payloadHash].join("\n");
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", stamp, credentialScope, crypto.createHash("sha256").update(canonicalRequest, "utf8").digest("hex")].join("\n");
  const signature = crypto.createHmac("sha256", signingKey(credentials.secretAccessKey, day, scope.region, scope.service)).update(stringToSign, "utf8").digest("hex");
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { headers, signature, canonicalRequest };
}
