/**
 * Where `envace login` keeps the server URL and API token: `$ENVACE_CONFIG_DIR/credentials.json`, by
 * default `$XDG_CONFIG_HOME/envace/` or `~/.config/envace/`. The directory is created with mode 0700 and
 * the file written with mode 0600 (owner read/write only), replaced atomically; a file readable by others
 * is refused until its mode is fixed. ENVACE_URL / ENVACE_TOKEN (and --url) override what is stored.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { UsageError } from "./overrides";

/** The environment variables read here (a plain object in tests). */
export type Env = Record<string, string | undefined>;

export const credentialsSchema = z.object({
  url: z.string().url(),
  token: z.string().min(1),
  email: z.string().optional(),
  role: z.string().optional(),
  savedAt: z.string().optional(),
});
export type Credentials = z.infer<typeof credentialsSchema>;

export function configDir(env: Env = process.env): string {
  if (env.ENVACE_CONFIG_DIR) return env.ENVACE_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "envace");
}

export function credentialsPath(env: Env = process.env): string {
  return path.join(configDir(env), "credentials.json");
}

export function saveCredentials(creds: Credentials, env: Env = process.env): string {
  const file = credentialsPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600); // whatever the umask
  fs.renameSync(tmp, file);
  return file;
}

export function loadCredentials(env: Env = process.env): Credentials | null {
  const file = credentialsPath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (process.platform !== "win32" && (fs.statSync(file).mode & 0o077) !== 0) {
    throw new UsageError(`${file} is readable by other users; run: chmod 600 ${file}`);
  }
  const parsed = credentialsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new UsageError(`${file} is not a valid credentials file (${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}); run envace login again`);
  return parsed.data;
}

export function removeCredentials(env: Env = process.env): boolean {
  try {
    fs.unlinkSync(credentialsPath(env));
    return true;
  } catch {
    return false;
  }
}
