import crypto from "node:crypto";

/** The server secret (sessions, encryption at rest). Set ENVACE_SECRET in production; dev writes one to .data/. */
export function serverSecret(): string {
  const s = process.env.ENVACE_SECRET ?? process.env.BETTER_AUTH_SECRET;
  if (!s || s.length < 32) throw new Error("ENVACE_SECRET must be set to at least 32 characters");
  return s;
}

export function sha256(text: string): string {
  return crypto.createHash("sha256").update(text).digest("hex");
}

/** A random URL-safe token with `bytes` bytes of entropy (default 32 = 256 bits). */
export function randomToken(prefix: string, bytes = 32): string {
  return `${prefix}${crypto.randomBytes(bytes).toString("base64url")}`;
}

function key(): Buffer {
  return crypto.createHash("sha256").update(`envace-at-rest:${serverSecret()}`).digest();
}

/** AES-256-GCM; output is base64 of iv(12) | tag(16) | ciphertext. */
export function encryptSecret(plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key(), iv);
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString("base64");
}

export function decryptSecret(enc: string): string {
  const buf = Buffer.from(enc, "base64");
  const decipher = crypto.createDecipheriv("aes-256-gcm", key(), buf.subarray(0, 12));
  decipher.setAuthTag(buf.subarray(12, 28));
  return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString("utf8");
}
