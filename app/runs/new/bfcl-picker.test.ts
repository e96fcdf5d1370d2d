import { describe, expect, it } from "vitest";
import { parseRunConfig } from "@/contracts/run-config";
import { datasetFor, selectedCategories } from "./bfcl-picker";

describe("the BFCL category picker's dataset value", () => {
  it("writes whole groups by name and single categories by themselves, and reads them back", () => {
    const multi = selectedCategories("bfcl:multi_turn");
    expect(datasetFor(multi)).toBe("bfcl:multi_turn");
    multi.delete("multi_turn_long_context");
    expect(datasetFor(multi)).toBe("bfcl:multi_turn_base,multi_turn_miss_func,multi_turn_miss_param");
    const mixed = new Set([...selectedCategories("bfcl:memory"), ...selectedCategories("bfcl:simple_python")]);
    // memory_vector cannot run: the group still names it (it is reported as not run), the picker never selects it.
    expect(mixed.has("memory_vector")).toBe(false);
    expect(datasetFor(mixed)).toBe("bfcl:memory,simple_python");
    expect(datasetFor(selectedCategories("bfcl:all"))).toBe("bfcl:single_turn,multi_turn,memory");
    for (const d of ["bfcl:multi_turn_base,multi_turn_miss_func,multi_turn_miss_param", "bfcl:memory,simple_python", "bfcl:single_turn,multi_turn,memory"]) {
      expect(parseRunConfig({ kind: "eval", data: { dataset: d } }).ok).toBe(true);
    }
    expect(selectedCategories("bfcl:nonsense").size).toBe(0);
  });
});
