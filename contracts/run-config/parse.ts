/** Parsing a run configuration with errors that name each bad field. */
import { type RunConfig, runConfigSchema } from "./schema";

/** Parse and return either the config or a list of `path: message` errors naming each bad field. */
export function parseRunConfig(input: unknown):
  | { ok: true; config: RunConfig }
  | { ok: false; errors: { path: string; message: string }[] } {
  const result = runConfigSchema.safeParse(input ?? {});
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    errors: result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
  };
}

