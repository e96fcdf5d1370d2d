import { describe, expect, it } from "vitest";
import { builtinDomainNames, parseRunConfig } from "../contracts/run-config";
import { benchmarkOf, benchmarkOptions } from "./benchmarks";

describe("the benchmark picker's choices", () => {
  it("lists BFCL, the τ² domains, the built-in domains, imported datasets and each against each MCP server", () => {
    const options = benchmarkOptions([{ name: "weather" }, { name: "memory-tasks" }], [{ name: "memory" }]);
    expect(options.map((o) => [o.group, o.dataset])).toEqual([
      ["BFCL v4", "bfcl:multi_turn"],
      ["τ²-bench", "tau2:retail"],
      ...builtinDomainNames.map((d) => ["Built-in domains", `builtin:${d}`]),
      ["Imported datasets", "dataset:weather"],
      ["Imported datasets", "dataset:memory-tasks"],
      ["MCP servers", "mcp:memory/weather"],
      ["MCP servers", "mcp:memory/memory-tasks"],
    ]);
    // Every value is one the run config accepts as data.dataset.
    for (const o of options) {
      const parsed = parseRunConfig({ kind: "eval", data: { dataset: o.dataset }, rollout: { userSimulator: { node: "u", model: "m" } } });
      expect(parsed.ok, `${o.dataset}: ${JSON.stringify(!parsed.ok && parsed.errors)}`).toBe(true);
    }
    expect(benchmarkOf("bfcl:simple_python,live", options)?.group).toBe("BFCL v4");
    expect(benchmarkOf("dataset:weather", options)?.label).toBe("weather");
  });
});
