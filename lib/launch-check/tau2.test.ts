/** The launch check's τ² part on the shipped data: every domain's split, ids and tasks, and the user-simulator prompt it measures. */
import { describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../contracts/run-config";
import { resolveRenderer } from "../renderers";
import { datasetVerdict } from "./datasets";
import { promptFloor } from "./prompt-floor";

function config(over: RunConfigInput) {
  const r = parseRunConfig({ kind: "eval", ...over, rollout: { userSimulator: { node: "u", model: "m" }, ...over.rollout } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}
const noDb = undefined as never;

describe("the tau2 dataset part of the launch check", () => {
  it("reads each domain's split and names its tasks, with telecom's phone tools", async () => {
    const telecom = await datasetVerdict(noDb, config({ data: { dataset: "tau2:telecom" } }));
    expect(telecom.problems).toEqual([]);
    expect(telecom.view).toMatchObject({ kind: "tau2", domains: [{ domain: "telecom" }] });
    const [t] = (telecom.view as Extract<typeof telecom.view, { kind: "tau2" }>).domains;
    expect([t!.tasks.length, t!.userTools?.length]).toEqual([74, 30]);
    const all = await datasetVerdict(noDb, config({ data: { dataset: "tau2:all", instanceIds: ["tau2:airline/11", "tau2:telecom/[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]"] } }));
    expect(all.problems).toEqual([]);
    expect((all.view as Extract<typeof all.view, { kind: "tau2" }>).domains.map((d) => [d.domain, d.tasks.map((x) => x.id)])).toEqual([
      ["airline", ["11"]],
      ["telecom", ["[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]"]],
    ]);
  });

  it("refuses a missing split, unknown ids, and bare ids where the domain is not known, on their fields", async () => {
    expect((await datasetVerdict(noDb, config({ data: { dataset: "tau2:airline", split: "test" } }))).problems).toEqual([
      { path: "data.split", message: expect.stringMatching(/^tau2 airline has no test split \(.*tau2-airline\/tasks\.test\.json is missing\)$/) },
    ]);
    expect((await datasetVerdict(noDb, config({ data: { dataset: "tau2:airline", instanceIds: ["11", "999"] } }))).problems).toEqual([{ path: "data.instanceIds", message: 'no task "999" in the tau2 airline train split' }]);
    expect((await datasetVerdict(noDb, config({ data: { dataset: "tau2:all", instanceIds: ["11"] } }))).problems).toEqual([{ path: "data.instanceIds", message: 'tau2:all needs ids of the form tau2:<domain>/<task id> ("11")' }]);
    expect((await datasetVerdict(noDb, config({ data: { dataset: "tau2:airline", instanceIds: ["tau2:telecom/x"] } }))).problems[0]).toMatchObject({ path: "data.instanceIds" });
  });

  it("measures the telecom user simulator's first request with its phone tools", async () => {
    // Qwen3's template writes the tools into the prompt (the tiny model's ignores them).
    const { renderer } = resolveRenderer("Qwen/Qwen3-8B", undefined, "test");
    const floor = async (dataset: string) => {
      const { view } = await datasetVerdict(noDb, config({ data: { dataset } }));
      return promptFloor(noDb, view, dataset, "user simulator", "chat", renderer, undefined);
    };
    const telecom = await floor("tau2:telecom");
    const airline = await floor("tau2:airline");
    expect(telecom!.what).toBe("tau2:telecom user-simulator prompts");
    // 30 tool schemas come with every telecom request: the floor is far above the guidelines + scenario alone.
    expect(telecom!.tokens).toBeGreaterThan(airline!.tokens + 3_000);
  });
});

describe("the run config", () => {
  it("takes the tau2 datasets and asks for a user simulator, one that calls tools for telecom", () => {
    for (const dataset of ["tau2:retail", "tau2:airline", "tau2:telecom", "tau2:all"]) expect(parseRunConfig({ data: { dataset }, rollout: { userSimulator: { node: "u", model: "m" } } }).ok, dataset).toBe(true);
    const bad = parseRunConfig({ data: { dataset: "tau2:banking" } });
    expect(bad.ok ? [] : bad.errors).toContainEqual({ path: "data.dataset", message: expect.stringMatching(/tau2:retail\|airline\|telecom\|all/) });
    const missing = (dataset: string) => {
      const r = parseRunConfig({ data: { dataset } });
      return r.ok ? null : r.errors.find((e) => e.path === "rollout.userSimulator")?.message;
    };
    expect(missing("tau2:retail")).toBe("tau2 retail tasks need a user-simulator node and model");
    expect(missing("tau2:airline")).toBe("tau2 airline tasks need a user-simulator node and model");
    expect(missing("tau2:telecom")).toBe("tau2 telecom tasks need a user-simulator node and model (one that calls tools: the telecom user acts on its phone)");
    expect(missing("tau2:all")).toBe("tau2 tasks need a user-simulator node and model (one that calls tools: the telecom user acts on its phone)");
  });
});
