/**
 * Imported CM2 datasets as run environments (`dataset:<id or name>`), read back from real Postgres
 * after an import through the real tRPC router.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfig, type RunConfigInput } from "../../contracts/run-config";
import { cm2Jsonl } from "../../test/fixtures/cm2";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { openEnvironment } from ".";

const open = (config: RunConfig, note: (message: string) => void = () => {}) => openEnvironment({ config, prisma, note, signal: new AbortController().signal });

describe("imported datasets as environments", () => {
  let member: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
  });

  it("serves an import to training runs as dataset:<id or name>, deterministically per step", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.datasets.import({ name: "weather-run", text: cm2Jsonl(6, 200) });
    const config = (over: RunConfigInput = {}) => {
      const parsed = parseRunConfig({
        kind: "train",
        data: { dataset: `dataset:${res.dataset.id}`, instancesPerStep: 4, seed: 3 },
        rollout: { paradigm: "rehearse" },
        reward: { judge: { node: "judge", model: "judge-model" } },
        ...over,
      });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      return parsed.config;
    };
    const notes: string[] = [];
    const source = await open(config(), (m) => notes.push(m));
    const step1 = source.forStep(1).map((i) => i.id);
    expect(step1).toHaveLength(4);
    expect(new Set(step1).size).toBe(4);
    expect(step1.every((id) => /^cm2-20[0-5]$/.test(id))).toBe(true);
    expect((await open(config())).forStep(1).map((i) => i.id)).toEqual(step1);
    expect(source.forStep(1)[0]!.checklists[0]!.length).toBe(2);
    expect(notes[0]).toMatch(/no test split/);

    // By name too; and clear refusals for what an imported dataset cannot do.
    const byName = await open(config({ data: { dataset: "dataset:weather-run", instancesPerStep: 4, seed: 3 } }));
    expect(byName.forStep(1).map((i) => i.id)).toEqual(step1);
    await expect(open(config({ rollout: { paradigm: "environment" } }))).rejects.toThrow(/no executable environment/);
    await expect(open(config({ reward: {} }))).rejects.toThrow(/set reward.judge/);
    await expect(open(config({ data: { dataset: "dataset:missing-one" } }))).rejects.toThrow(/no imported dataset "missing-one"/);
  });

  it("trains on a fixed seeded pool of an import (data.poolSize); instanceIds still resolve in the whole split", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.datasets.import({ name: "weather-pool", text: cm2Jsonl(10, 300) });
    const config = (data: Record<string, unknown>) => {
      const parsed = parseRunConfig({
        kind: "train",
        data: { dataset: `dataset:${res.dataset.id}`, instancesPerStep: 4, seed: 5, ...data },
        rollout: { paradigm: "rehearse" },
        reward: { judge: { node: "judge", model: "judge-model" } },
      });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      return parsed.config;
    };
    const source = await open(config({ poolSize: 3 }));
    const seen = new Set<string>();
    for (let step = 1; step <= 12; step++) for (const inst of source.forStep(step)) seen.add(inst.id);
    // Every step draws from the same three tasks, and over a dozen steps all three come up.
    expect(seen.size).toBe(3);
    const again = await open(config({ poolSize: 3 }));
    expect(again.forStep(7).map((i) => i.id)).toEqual(source.forStep(7).map((i) => i.id));
    // Another seed draws another pool (ids are cm2-300 … cm2-309).
    const other = await open(config({ poolSize: 3, seed: 6 }));
    const otherSeen = new Set<string>();
    for (let step = 1; step <= 12; step++) for (const inst of other.forStep(step)) otherSeen.add(inst.id);
    expect(otherSeen.size).toBe(3);
    expect([...otherSeen].sort()).not.toEqual([...seen].sort());
    // An id outside the pool is still accepted: instanceIds are looked up in the whole split.
    const outside = ["cm2-300", "cm2-301", "cm2-302", "cm2-303", "cm2-304", "cm2-305", "cm2-306", "cm2-307", "cm2-308", "cm2-309"].find((id) => !seen.has(id))!;
    const pinned = await open(config({ poolSize: 3, instanceIds: [outside] }));
    expect(pinned.forStep(1).map((i) => i.id)).toEqual([outside, outside, outside, outside]);
    // A pool larger than the split is the whole split.
    const big = await open(config({ poolSize: 50 }));
    const bigSeen = new Set<string>();
    for (let step = 1; step <= 30; step++) for (const inst of big.forStep(step)) bigSeen.add(inst.id);
    expect(bigSeen.size).toBe(10);
  });
});
