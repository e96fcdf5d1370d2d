/** The entry counts the aggregation uses for categories that were not run are those of the data files. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bfclDataDir } from "../single-turn/files";
import { BFCL_V4_ENTRY_COUNTS } from "../../../../lib/bfcl/aggregate";

const dir = bfclDataDir();
const hasData = existsSync(path.join(dir, "data", "BFCL_v4_simple_python.json"));
if (!hasData) console.warn(`BFCL data not found under ${dir}: skipping the entry-count test (set ENVACE_DATA_DIR).`);
const lines = (file: string) => readFileSync(path.join(dir, "data", file), "utf8").split("\n").filter((l) => l.trim() !== "").length;

describe.skipIf(!hasData)("BFCL v4 entry counts", () => {
  it("match the data files (memory and web search count once per back end / variant)", () => {
    for (const [category, count] of Object.entries(BFCL_V4_ENTRY_COUNTS)) {
      const file = category.startsWith("memory_") ? "BFCL_v4_memory.json" : category.startsWith("web_search") ? "BFCL_v4_web_search.json" : `BFCL_v4_${category}.json`;
      expect([category, lines(file)]).toEqual([category, count]);
    }
  });
});
