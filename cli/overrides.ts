/**
 * `--set key=value` for `envace runs create`: dotted keys are the run settings' paths (contracts/run-settings.ts);
 * values are JSON when they parse as JSON (numbers, true/false, null, [lists], {objects}, "quoted"), else
 * text. A list setting (data.instanceIds) also takes a comma list: `--set data.instanceIds=0,1,2` is
 * ["0", "1", "2"], as `--set 'data.instanceIds=["0","1","2"]'` is. A key that is no setting is refused
 * here, before anything is sent, naming the nearest ones.
 */
import { runSettings } from "../contracts/run-settings";
import { nearestNames } from "../lib/nearest";

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface Override {
  path: string[];
  value: unknown;
}

/** Keys `--set` accepts: every setting, and the groups that can be set whole as JSON (e.g. reward.judge). */
function knownKeys(): Set<string> {
  const keys = new Set<string>();
  for (const s of runSettings()) {
    for (let i = 1; i <= s.path.length; i++) keys.add(s.path.slice(0, i).join("."));
  }
  return keys;
}

/** The settings whose value is a list of strings (data.instanceIds). */
function listKeys(): Set<string> {
  return new Set(runSettings().filter((s) => s.kind === "string-list").map((s) => s.key));
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A list setting's value: a JSON list as written (numbers and booleans as their text), else the comma-separated items. */
function parseList(text: string): unknown {
  const json = parseValue(text);
  if (Array.isArray(json)) return json.map((v) => (typeof v === "number" || typeof v === "boolean" ? String(v) : v));
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** Up to three known keys closest to a mistyped one. */
export function nearestKeys(key: string, known: Iterable<string>): string[] {
  return nearestNames(key, known);
}

export function parseOverride(arg: string, known: Set<string> = knownKeys(), lists: Set<string> = listKeys()): Override {
  const eq = arg.indexOf("=");
  if (eq <= 0) throw new UsageError(`--set ${arg}: expected key=value, e.g. --set data.instancesPerStep=8`);
  const key = arg.slice(0, eq).trim();
  if (!known.has(key)) {
    const near = nearestKeys(key, known);
    throw new UsageError(`--set ${key}: no such run setting${near.length ? ` (did you mean ${near.join(", ")}?)` : ""}; \`envace runs settings\` lists them all`);
  }
  const text = arg.slice(eq + 1);
  return { path: key.split("."), value: lists.has(key) ? parseList(text) : parseValue(text) };
}

/** A copy of `config` with each override applied in order (later ones win). */
export function applyOverrides(config: Record<string, unknown>, overrides: Override[]): Record<string, unknown> {
  const root = structuredClone(config);
  for (const { path, value } of overrides) {
    let cur = root;
    for (const k of path.slice(0, -1)) {
      if (typeof cur[k] !== "object" || cur[k] === null || Array.isArray(cur[k])) cur[k] = {};
      cur = cur[k] as Record<string, unknown>;
    }
    cur[path[path.length - 1]!] = value;
  }
  return root;
}
