/** Shared loading for the BFCL tests: fixtures under test/fixtures/bfcl and the shared data (when present). */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bfclDataDir, loadMultiTurnTasks, MULTI_TURN_CATEGORIES, type BfclTask, type MultiTurnCategory } from "./data";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const FIXTURES = path.join(repoRoot, "test/fixtures/bfcl");

/** The day the goldens pin for `datetime.today()` (meta.json's fixed_today). */
export const GOLDEN_TODAY_MS = Date.UTC(2026, 0, 15, 12, 0, 0);

export function readFixtureLines<T>(name: string): T[] {
  return readFileSync(path.join(FIXTURES, name), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}

/** Whether the shared BFCL data is present (tests that need it skip, saying so, when it is not). */
export function hasBfclData(): boolean {
  const ok = existsSync(path.join(bfclDataDir(), "data", "BFCL_v4_multi_turn_base.json"));
  if (!ok) console.warn(`BFCL data not found under ${bfclDataDir()} (set ENVACE_DATA_DIR): skipping the tests that replay the shared tasks.`);
  return ok;
}

let cached: Map<MultiTurnCategory, BfclTask[]> | undefined;

export function allTasks(): Map<MultiTurnCategory, BfclTask[]> {
  cached ??= new Map(MULTI_TURN_CATEGORIES.map((c) => [c, loadMultiTurnTasks(c)]));
  return cached;
}
