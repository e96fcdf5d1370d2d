/**
 * A small in-memory S3-compatible server for tests of lib/s3-store.ts, which VERIFIES every request's
 * SigV4 signature with its own code (nothing from lib/s3-sigv4.ts): it rebuilds the canonical request
 * from what arrived on the wire (decoded then re-encoded path and query, the signed headers' values),
 * and checks the access key, region, service, date skew, that host / x-amz-date / x-amz-content-sha256
 * are signed, and that the body's SHA-256 is the one signed. A request that fails answers 403 with S3's
 * error XML (SignatureDoesNotMatch, XAmzContentSHA256Mismatch, …), as S3 does.
 *
 * (s3rver, the usual npm choice, installs cleanly but does not check V4 signatures:
 * its lib/middleware/authentication.js says "Signature version 4 calculation is unimplemented".)
 *
 * Operations: PUT/GET/HEAD/DELETE object, multipart upload (initiate, upload part, complete, abort).
 * Path-style (`/<bucket>/<key>`) and virtual-hosted (`Host: <bucket>.<anything>`) addressing.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TestS3Server {
  url: string;
  port: number;
  objects: Map<string, Buffer>;
  /** Every request: method, bucket, key, sorted query names, the addressing used, the answer's status. */
  log: { method: string; bucket: string; key: string; query: string[]; style: "path" | "virtual"; status: number }[];
  /** When set, GETs answer the object with this byte flipped (a store that hands back damaged data). */
  corruptGetAt: number | null;
  close(): Promise<void>;
}

const sha256 = (b: Buffer | string) => crypto.createHash("sha256").update(b).digest("hex");
const hmacOf = (key: Buffer | string, data: string) => crypto.createHmac("sha256", key).update(data).digest();
/** RFC 3986 encoding, written out here on purpose (not shared with the client). */
function encode(s: string): string {
  return Array.from(Buffer.from(s, "utf8"))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");
}

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

export async function startTestS3Server(opts: { bucket: string; accessKeyId: string; secretAccessKey: string; region: string }): Promise<TestS3Server> {
  const objects = new Map<string, Buffer>();
  const uploads = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  const log: TestS3Server["log"] = [];
  const state = { corruptGetAt: null as number | null };

  function verify(req: http.IncomingMessage, rawPath: string, rawQuery: string, body: Buffer): string | null {
    const auth = req.headers.authorization ?? "";
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
    if (!m) return "AccessDenied:no SigV4 Authorization header";
    const [, accessKey, day, region, service, signedHeaders, signature] = m;
    if (accessKey !== opts.accessKeyId) return "InvalidAccessKeyId:unknown access key";
    if (region !== opts.region || service !== "s3") return "AuthorizationHeaderMalformed:wrong region or service";
    const stamp = String(req.headers["x-amz-date"] ?? "");
    if (!/^\d{8}T\d{6}Z$/.test(stamp) || stamp.slice(0, 8) !== day) return "AccessDenied:bad x-amz-date";
    const when = Date.parse(`${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`);
    if (Math.abs(Date.now() - when) > 15 * 60_000) return "RequestTimeTooSkewed:the request time is too far from the server's";
    const names = signedHeaders!.split(";");
    for (const required of ["host", "x-amz-date", "x-amz-content-sha256"]) if (!names.includes(required)) return `AccessDenied:${required} is not signed`;
    const payloadHash = String(req.headers["x-amz-content-sha256"]);
    if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256(body)) return "XAmzContentSHA256Mismatch:the body's SHA-256 is not the one signed";
    const canonicalUri = rawPath.split("/").map((seg) => encode(decodeURIComponent(seg))).join("/");
    const canonicalQueryString = rawQuery
      ? rawQuery
          .split("&")
          .map((p) => {
            const i = p.indexOf("=");
            const k = decodeURIComponent(i < 0 ? p : p.slice(0, i));
            const v = i < 0 ? "" : decodeURIComponent(p.slice(i + 1));
            return [encode(k), encode(v)] as const;
          })
          .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
          .map(([k, v]) => `${k}=${v}`)
          .join("&")
      : "";
    const headerLines = names.map((n) => {
      const v = req.headers[n];
      return `${n}:${(Array.isArray(v) ? v.join(",") : (v ?? "")).trim().replace(/\s+/g, " ")}\n`;
    });
    const canonical = `${req.method}\n${canonicalUri}\n${canonicalQueryString}\n${headerLines.join("")}\n${signedHeaders}\n${payloadHash}`;
    const toSign = `AWS4-HMAC-SHA256\n${stamp}\n${day}/${region}/s3/aws4_request\n${sha256(canonical)}`;
    let key = hmacOf(`AWS4${opts.secretAccessKey}`, day!);
    for (const part of [region!, "s3", "aws4_request"]) key = hmacOf(key, part);
    const expected = crypto.createHmac("sha256", key).update(toSign).digest("hex");
    return crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature!)) ? null : "SignatureDoesNotMatch:the signature does not match";
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const [rawPath = "/", rawQuery = ""] = (req.url ?? "/").split("?", 2) as [string, string?];
      const host = String(req.headers.host ?? "");
      const style: "path" | "virtual" = host.startsWith(`${opts.bucket}.`) ? "virtual" : "path";
      const segments = rawPath.split("/").slice(1).map((s) => decodeURIComponent(s));
      const bucket = style === "virtual" ? opts.bucket : (segments.shift() ?? "");
      const key = segments.join("/");
      const query = new URLSearchParams(rawQuery);
      const answer = (status: number, text = "", headers: Record<string, string> = {}) => {
        log.push({ method: req.method!, bucket, key, query: [...query.keys()].sort(), style, status });
        res.writeHead(status, { ...(text ? { "content-type": "application/xml" } : {}), ...headers });
        res.end(req.method === "HEAD" ? undefined : text);
      };
      const refused = verify(req, rawPath, rawQuery, body);
      if (refused) {
        const [code, message] = refused.split(/:(.*)/s);
        return answer(403, errorXml(code!, message!));
      }
      if (bucket !== opts.bucket) return answer(404, errorXml("NoSuchBucket", "The specified bucket does not exist"));
      const uploadId = query.get("uploadId");
      if (req.method === "POST" && query.has("uploads")) {
        const id = crypto.randomUUID();
        uploads.set(id, { key, parts: new Map() });
        return answer(200, `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`);
      }
      if (uploadId !== null) {
        const upload = uploads.get(uploadId);
        if (!upload || upload.key !== key) return answer(404, errorXml("NoSuchUpload", "The specified upload does not exist"));
        if (req.method === "PUT") {
          const n = Number(query.get("partNumber"));
          upload.parts.set(n, body);
          return answer(200, "", { etag: `"${crypto.createHash("md5").update(body).digest("hex")}"` });
        }
        if (req.method === "POST") {
          const listed = [...body.toString("utf8").matchAll(/<PartNumber>(\d+)<\/PartNumber><ETag>([^<]*)<\/ETag>/g)].map((x) => ({ n: Number(x[1]), etag: x[2]!.replace(/&quot;/g, '"') }));
          const parts: Buffer[] = [];
          for (const p of listed) {
            const part = upload.parts.get(p.n);
            if (!part || `"${crypto.createHash("md5").update(part).digest("hex")}"` !== p.etag) return answer(400, errorXml("InvalidPart", `part ${p.n} is missing or its ETag differs`));
            parts.push(part);
          }
          objects.set(key, Buffer.concat(parts));
          uploads.delete(uploadId);
          return answer(200, `<CompleteMultipartUploadResult><Key>${key}</Key></CompleteMultipartUploadResult>`);
        }
        if (req.method === "DELETE") {
          uploads.delete(uploadId);
          return answer(204);
        }
      }
      const object = objects.get(key);
      switch (req.method) {
        case "PUT":
          objects.set(key, body);
          return answer(200, "", { etag: `"${crypto.createHash("md5").update(body).digest("hex")}"` });
        case "GET": {
          if (!object) return answer(404, errorXml("NoSuchKey", "The specified key does not exist."));
          const out = Buffer.from(object);
          if (state.corruptGetAt !== null && state.corruptGetAt < out.length) out[state.corruptGetAt] = out[state.corruptGetAt]! ^ 0xff;
          log.push({ method: "GET", bucket, key, query: [], style, status: 200 });
          res.writeHead(200, { "content-length": String(out.length) });
          return res.end(out);
        }
        case "HEAD":
          return object ? answer(200, "", { "content-length": String(object.length) }) : answer(404);
        case "DELETE":
          objects.delete(key);
          return answer(204);
        default:
          return answer(405, errorXml("MethodNotAllowed", "The specified method is not allowed"));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    objects,
    log,
    get corruptGetAt() {
      return state.corruptGetAt;
    },
    set corruptGetAt(v: number | null) {
      state.corruptGetAt = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
