/** The episode's opening texts and tools against upstream's own (scripts/vitabench/oracle.py user-prompt, schemas). */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { vitaToolNames, vitaToolSchemas } from "../../../lib/vitabench/tools";
import { runUserPromptCase } from "./cli/user-prompt";
import { createWorld } from "./index";
import { FixedClock } from "./registry";
import { PyDict } from "../../../lib/python/values";
import { dataDir as sharedDataDir } from "../../../lib/tau2/tasks";

const fixture = (name: string) => new URL(`../../../test/fixtures/vitabench/${name}`, import.meta.url);
const lines = (name: string) => readFileSync(fixture(name), "utf8").split("\n").filter((l) => l.trim());
const shared = existsSync(`${sharedDataDir()}/vitabench/delivery/tasks.json`);

describe("VitaBench episode prompts and tools", () => {
  it.skipIf(!shared)("renders the user simulator's and the agent's system prompts as upstream (persona = str(user_profile), time with weekday)", () => {
    const dir = fixture("").pathname;
    const got = lines("user-prompt.cases.jsonl").map((c) => JSON.parse(runUserPromptCase(c.replaceAll("@fixtures/", dir))));
    expect(got).toEqual(lines("user-prompt.golden.jsonl").map((l) => JSON.parse(l)));
  });
  it("lists upstream's tools in the order the dispatcher knows them, in both languages", () => {
    for (const domain of ["delivery", "instore", "ota", "delivery,instore,ota"]) {
      const world = createWorld(domain, new PyDict(), "english", new FixedClock("2025-01-01 00:00:00"));
      expect(vitaToolNames(domain)).toEqual(world.toolNames());
      for (const lang of ["zh", "en"] as const) expect(vitaToolSchemas(domain, lang).map((t) => t.function.name)).toEqual(world.toolNames());
    }
    expect(vitaToolNames("delivery,instore,ota")).toHaveLength(66);
    const en = vitaToolSchemas("delivery", "en").find((t) => t.function.name === "create_delivery_order")!;
    expect(en.function.parameters.required).toEqual(["user_id", "store_id", "product_ids", "product_cnts", "address", "dispatch_time"]);
    expect(vitaToolSchemas("delivery", "zh")[0]!.function.description).toContain("根据距离");
  });
});
