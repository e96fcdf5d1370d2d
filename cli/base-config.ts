/** The run config a command starts from: --config FILE or --preset NAME, with --set overrides (runs create, studies create). */
import path from "node:path";
import { presets, type PresetKey } from "../contracts/run-config";
import { applyOverrides, parseOverride, UsageError, type Override } from "./overrides";

export function baseConfigOf(
  opts: { config?: string; preset?: string; set?: string[] },
  readJsonFile: (file: string, what: string) => unknown,
): { config: Record<string, unknown>; name: string } {
  if (!opts.config && !opts.preset) throw new UsageError("give --config FILE or --preset NAME");
  let config: Record<string, unknown>;
  let name: string;
  if (opts.config) {
    const file = readJsonFile(opts.config, "config file");
    if (!file || typeof file !== "object" || Array.isArray(file)) throw new UsageError(`config file ${opts.config}: expected a JSON object of run settings`);
    config = file as Record<string, unknown>;
    name = path.basename(opts.config).replace(/\.json$/i, "");
  } else {
    config = structuredClone(presets[opts.preset as PresetKey].config) as Record<string, unknown>;
    name = opts.preset!;
  }
  const overrides: Override[] = (opts.set ?? []).map((s) => parseOverride(s));
  return { config: applyOverrides(config, overrides), name };
}
