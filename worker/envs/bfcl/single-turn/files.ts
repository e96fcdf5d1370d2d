/**
 * Where BFCL data is read from at run time, and a JSON Lines reader whose errors name the file and line.
 * `$ENVACE_DATA_DIR/bfcl`, else `<repo>/../shared/data/bfcl` (never committed to this repository).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { pyJsonLoads, type PyValue } from "./values";

export class BfclFileError extends Error {}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** `$ENVACE_DATA_DIR/bfcl`, else `<repo>/../shared/data/bfcl`. */
export function bfclDataDir(): string {
  const base = process.env.ENVACE_DATA_DIR ?? path.resolve(repoRoot, "../shared/data");
  return path.join(base, "bfcl");
}

/** The full path of a file under the BFCL data folder; throws a message saying what is missing and where. */
export function bfclFile(relative: string, dir = bfclDataDir()): string {
  const full = path.join(dir, relative);
  if (!existsSync(full)) {
    throw new BfclFileError(
      `BFCL data not found: ${full} is missing. Set ENVACE_DATA_DIR to a folder containing bfcl/ ` +
        `(BFCL v4's data/ and reference/, see worker/envs/bfcl/README.md); the default is <repo>/../shared/data.`,
    );
  }
  return full;
}

export interface JsonLine<T> {
  line: number;
  /** The line validated by the schema. */
  value: T;
  /** The same line as Python's `json.loads` builds it (dict order, int vs float). */
  py: PyValue;
}

/** Reads a JSON Lines file, validating every line with `schema`; errors name the file and line. */
export function readJsonLines<T>(file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): JsonLine<T>[] {
  const out: JsonLine<T>[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, index) => {
      if (text.trim() === "") return;
      const line = index + 1;
      let raw: unknown;
      let py: PyValue;
      try {
        raw = JSON.parse(text);
        py = pyJsonLoads(text);
      } catch (err) {
        throw new BfclFileError(`${file}:${line}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
      }
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new BfclFileError(`${file}:${line}: ${issue.path.join(".") || "(line)"}: ${issue.message}`);
      }
      out.push({ line, value: parsed.data, py });
    });
  return out;
}
