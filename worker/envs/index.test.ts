import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { parseRunConfig, quickstartPreset, type RunConfig, type RunConfigInput } from "../../contracts/run-config";
import { evaluationTasks, forcedEvaluationParadigm } from "../../lib/eval-tasks";
import { dataDir as sharedDataDir, retailDataFiles } from "../../lib/tau2/tasks";
import { VITA_TASKS_PER_FILE } from "../../lib/vitabench/datasets";
import { hasBfclData } from "../../test/fixtures/bfcl-data";
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
    expect(environmentKindOf("vitabench:delivery/en").prefix).toBe("vitabench:");
    expect(() => environmentKindOf("bogus:x" as RunConfig["data"]["dataset"])).toThrow(
      /not available to the engine \(supported: builtin:<name>, tau2:<retail\|airline\|telecom\|all>, bfcl:<category or group>\[,…\], vitabench:<delivery\|instore\|ota\|cross>\[\/<zh\|en>\], finmcp:<file>, dataset:<id or name>, mcp:<server>\/<dataset id or name>\)/,
    );
  });

  it("opens a run's environment (no database needed for built-in domains) and names unknown ones", async () => {
    const config = quickstart();
    const env = await openEnvironment({ config, prisma: undefined as never, note: () => {}, signal: new AbortController().signal });
    expect(env.forStep(1)).toHaveLength(config.data.instancesPerStep);
    expect(env.userSimulator).toBeUndefined();
    const banking = { ...config, data: { ...config.data, dataset: "tau2:banking" } } as RunConfig;
    await expect(openEnvironment({ config: banking, prisma: undefined as never, note: () => {}, signal: new AbortController().signal })).rejects.toThrow(/unknown tau2 domain "tau2:banking" \(available: tau2:retail, tau2:airline, tau2:telecom, tau2:all\)/);
  });
});

describe("what the new-run form says an evaluation runs (lib/eval-tasks.ts)", () => {
  const evaluation = (input: RunConfigInput): RunConfig => {
    const parsed = parseRunConfig({ kind: "eval", ...input });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.config;
  };
  const open = (config: RunConfig) => openEnvironment({ config, prisma: undefined as never, note: () => {}, signal: new AbortController().signal });
  const agree = async (config: RunConfig) => {
    const env = await open(config);
    const said = evaluationTasks(config);
    if (said.count !== null) expect(env.evalSet(), config.data.dataset).toHaveLength(said.count);
    expect(env.evaluationParadigm ?? null, config.data.dataset).toEqual(forcedEvaluationParadigm(config.data.dataset));
    return env;
  };

  it("a built-in domain: a sample of instancesPerStep, or the ids entered", async () => {
    await agree(evaluation({ data: { dataset: "builtin:shop", split: "test", instancesPerStep: 5 } }));
    await agree(evaluation({ data: { dataset: "builtin:shop", split: "test", instanceIds: (await open(evaluation({ data: { split: "test", instancesPerStep: 3 } }))).evalSet().map((i) => i.id) } }));
  });

  it.runIf(hasBfclData())("BFCL: every task of the categories, or the ids entered; the real back ends", async () => {
    await agree(evaluation({ data: { dataset: "bfcl:multi_turn_base,simple_java" } }));
    await agree(evaluation({ data: { dataset: "bfcl:multi_turn", instanceIds: ["multi_turn_base_0", "multi_turn_base_1", "multi_turn_base_0"] } }));
  });

  it.runIf(existsSync(retailDataFiles({ required: [] }).tasks))("tau2 retail: the whole split, or the ids entered; the real tools", async () => {
    const all = await agree(evaluation({ data: { dataset: "tau2:retail" }, rollout: { userSimulator: { node: "u", model: "m" } } }));
    expect(all.evalSet().length).toBeGreaterThan(16);
    await agree(evaluation({ data: { dataset: "tau2:retail", instanceIds: all.evalSet().slice(0, 6).map((i) => i.id) }, rollout: { userSimulator: { node: "u", model: "m" } } }));
  });

  it.runIf(existsSync(`${sharedDataDir()}/vitabench/delivery/tasks.json`))("VitaBench: every task of the domain's file, or the ids entered; the real tools", async () => {
    const needs = { rollout: { userSimulator: { node: "u", model: "m" } }, reward: { judge: { node: "j", model: "m" } } };
    const all = await agree(evaluation({ data: { dataset: "vitabench:delivery" }, ...needs }));
    expect(all.evalSet()).toHaveLength(VITA_TASKS_PER_FILE);
    expect(all.evalSet()[0]!.id).toMatch(/^vitabench:delivery\/zh\//);
    await agree(evaluation({ data: { dataset: "vitabench:instore/en", instanceIds: ["10826004", "10826012"] }, ...needs }));
  });
});
