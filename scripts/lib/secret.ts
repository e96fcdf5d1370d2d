import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** ENVACE_SECRET from the environment, or one generated once into a git-ignored file for local installs. */
export function ensureSecret(dataDir: string): string {
  if (process.env.ENVACE_SECRET) return process.env.ENVACE_SECRET;
  const file = path.join(dataDir, "secret");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, crypto.randomBytes(32).toString("hex"), { mode: 0o600 });
  }
  return fs.readFileSync(file, "utf8").trim();
}
