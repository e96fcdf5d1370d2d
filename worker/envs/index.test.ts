import { describe, expect, it } from "vitest";
import { parseRunConfig, quickstartPreset, type RunConfig } from "../../contracts/run-config";
import { environmentKindOf, openEnvironment } from ".";

const quickstart = (): RunConfig => {
  const parsed = parseRunConfig(quickstartPreset);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.config;
};

describe("the environment registry", () => {
  it("finds the kind by the prefix of data.dataset", () => {
    expect(environmentKindOf("builtin:shop").prefix).toBe("builtin:");
    expect(environmentKindOf("tau2:retail").prefix).toBe("tau2:");
    expect(environmentKindOf("dataset:weather").prefix).toBe("dataset:");
    expect(environmentKindOf("bfcl:multi_turn,simple_python").prefix).toBe("bfcl:");
    expect(environmentKindOf("mcp:memory/tasks").prefix).toBe("mcp:");
    expect(() => environmentKindOf("bogus:x" as RunConfig["data"]["dataset"])).toThrow(
      /not available to the engine \(supported: builtin:<name>, tau2:retail, bfcl:<category or group>\[,…\], dataset:<id or name>, mcp:<server>\/<dataset id or name>\)/,
    );
  });

  it("opens a run's environment (no database needed for built-in domains) and names unknown ones", async () => {
    const config = quickstart();
    const env = await openEnvironment({ config, prisma: undefined as never, note: () => {}, signal: new AbortController().signal });
    expect(env.forStep(1)).toHaveLength(config.data.instancesPerStep);
    expect(env.userSimulator).toBeUndefined();
    const airline = { ...config, data: { ...config.data, dataset: "tau2:airline" } } as RunConfig;
    await expect(openEnvironment({ config: airline, prisma: undefined as never, note: () => {}, signal: new AbortController().signal })).rejects.toThrow(/unknown tau2 domain "tau2:airline"/);
  });
});
