/**
 * Datasets through the real tRPC router against real Postgres: all-or-nothing CM2 import with line
 * numbers, skipInvalid, roles, paging; and the worker reading an import back as `dataset:<id or name>`.
 */
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { parseRunConfig, type RunConfigInput } from "../../../contracts/run-config";
import { instanceSource } from "../../../worker/runner/instances";
import { cm2Jsonl, cm2Row } from "./fixtures";

async function rejection(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected the call to be rejected");
}

function fieldErrors(err: TRPCError): { path: string; message: string }[] {
  return (err.cause as { fieldErrors?: { path: string; message: string }[] } | undefined)?.fieldErrors ?? [];
}

describe("datasets", () => {
  let member: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    await prisma.dataset.deleteMany();
    member = await signUp("member");
    viewer = await signUp("viewer");
  });

  it("accepts a file saved with a UTF-8 byte-order mark", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.datasets.import({ name: "with-bom", text: "\uFEFF" + cm2Jsonl(2, 900) });
    expect(res.imported).toBe(2);
    const rows = await prisma.instance.findMany({ where: { dataset: { name: "with-bom" } }, select: { externalId: true }, orderBy: { externalId: "asc" } });
    expect(rows.map((r) => r.externalId)).toEqual(["cm2-900", "cm2-901"]);
  });

  it("imports a valid JSONL file as instances in one dataset, with counts per split", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.datasets.import({ name: "weather-train", text: cm2Jsonl(3), split: "train" });
    expect(res.imported).toBe(3);
    expect(res.skippedCount).toBe(0);

    const got = await caller.datasets.get({ id: res.dataset.id });
    expect(got).toMatchObject({ name: "weather-train", format: "cm2", instanceCount: 3, splits: [{ split: "train", count: 3 }] });
    const rows = await prisma.instance.findMany({ where: { datasetId: res.dataset.id }, orderBy: { externalId: "asc" } });
    expect(rows.map((r) => r.externalId)).toEqual(["cm2-1", "cm2-2", "cm2-3"]);
    const data = rows[0]!.data as { messages: { role: string }[]; tools: unknown[]; followUpUserMessages: string[]; checklists: unknown[][][] };
    expect(data.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(data.tools).toHaveLength(1);
    expect(data.followUpUserMessages).toEqual(["And the day after?"]);
    expect(data.checklists[0]).toHaveLength(2);

    expect((await caller.datasets.list()).map((d) => d.name)).toContain("weather-train");
  });

  it("rejects an invalid file with line numbers and writes nothing", async () => {
    const caller = await callerFor(member.headers);
    const broken = { ...cm2Row(5), messages: [] };
    const text = [JSON.stringify(cm2Row(4)), "{not json", JSON.stringify(broken)].join("\n");
    const err = await rejection(caller.datasets.import({ name: "weather-broken", text }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toMatch(/2 invalid rows; nothing was imported/);
    const errors = fieldErrors(err);
    expect(errors.map((e) => e.path)).toEqual(["line 2", "line 3"]);
    expect(errors[0]!.message).toMatch(/not valid JSON/);
    expect(errors[1]!.message).toMatch(/messages/);
    expect(await prisma.dataset.count({ where: { name: "weather-broken" } })).toBe(0);
    expect(await prisma.instance.count({ where: { externalId: "cm2-4" } })).toBe(0);
  });

  it("with skipInvalid imports the good lines and reports the skipped ones", async () => {
    const caller = await callerFor(member.headers);
    const text = [JSON.stringify(cm2Row(10)), "{not json", JSON.stringify(cm2Row(11, "Lyon"))].join("\n");
    const res = await caller.datasets.import({ name: "weather-partial", text, skipInvalid: true, split: "test" });
    expect(res.imported).toBe(2);
    expect(res.skipped).toEqual([{ line: 2, message: expect.stringMatching(/not valid JSON/) }]);
    const got = await caller.datasets.get({ id: res.dataset.id });
    expect(got.splits).toEqual([{ split: "test", count: 2 }]);
  });

  it("refuses viewers, taken names, bad names and oversized files", async () => {
    const asViewer = await callerFor(viewer.headers);
    expect((await rejection(asViewer.datasets.import({ name: "nope", text: cm2Jsonl(1) }))).code).toBe("FORBIDDEN");
    expect(await prisma.dataset.count({ where: { name: "nope" } })).toBe(0);
    // Viewers may read.
    expect((await asViewer.datasets.list()).length).toBeGreaterThan(0);

    const caller = await callerFor(member.headers);
    const taken = await rejection(caller.datasets.import({ name: "weather-train", text: cm2Jsonl(1, 50) }));
    expect(taken.code).toBe("CONFLICT");
    expect(await prisma.instance.count({ where: { externalId: "cm2-50" } })).toBe(0);
    expect((await rejection(caller.datasets.import({ name: "has spaces", text: cm2Jsonl(1) }))).code).toBe("BAD_REQUEST");
    const big = await rejection(caller.datasets.import({ name: "too-big", text: "x".repeat(20 * 1024 * 1024 + 1) }));
    expect(big.code).toBe("BAD_REQUEST");
    expect(big.message).toMatch(/20 MB/);
  });

  it("pages instances with list columns only", async () => {
    const caller = await callerFor(member.headers);
    const res = await caller.datasets.import({ name: "weather-paged", text: cm2Jsonl(5, 100) });
    const first = await caller.datasets.instances({ datasetId: res.dataset.id, limit: 2 });
    expect(first.items.map((i) => i.externalId)).toEqual(["cm2-100", "cm2-101"]);
    expect(first.items[0]).toEqual({
      id: expect.any(String),
      externalId: "cm2-100",
      split: "train",
      dataSource: "nvidia_nemotron_checklist",
      firstUserMessage: "Will it rain in Paris tomorrow?",
      tools: 1,
      userTurns: 2,
      checklists: 1,
    });
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof caller.datasets.instances>> = await caller.datasets.instances({ datasetId: res.dataset.id, limit: 2, cursor });
      all.push(...page.items.map((i) => i.externalId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(all).toEqual(["cm2-100", "cm2-101", "cm2-102", "cm2-103", "cm2-104"]);
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
    const source = await instanceSource(prisma, config(), (m) => notes.push(m));
    const step1 = source.forStep(1).map((i) => i.id);
    expect(step1).toHaveLength(4);
    expect(new Set(step1).size).toBe(4);
    expect(step1.every((id) => /^cm2-20[0-5]$/.test(id))).toBe(true);
    expect((await instanceSource(prisma, config())).forStep(1).map((i) => i.id)).toEqual(step1);
    expect(source.forStep(1)[0]!.checklists[0]!.length).toBe(2);
    expect(notes[0]).toMatch(/no test split/);

    // By name too; and clear refusals for what an imported dataset cannot do.
    const byName = await instanceSource(prisma, config({ data: { dataset: "dataset:weather-run", instancesPerStep: 4, seed: 3 } }));
    expect(byName.forStep(1).map((i) => i.id)).toEqual(step1);
    await expect(instanceSource(prisma, config({ rollout: { paradigm: "environment" } }))).rejects.toThrow(/no executable environment/);
    await expect(instanceSource(prisma, config({ reward: {} }))).rejects.toThrow(/set reward.judge/);
    await expect(instanceSource(prisma, config({ data: { dataset: "dataset:missing-one" } }))).rejects.toThrow(/no imported dataset "missing-one"/);
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
    const source = await instanceSource(prisma, config({ poolSize: 3 }));
    const seen = new Set<string>();
    for (let step = 1; step <= 12; step++) for (const inst of source.forStep(step)) seen.add(inst.id);
    // Every step draws from the same three tasks, and over a dozen steps all three come up.
    expect(seen.size).toBe(3);
    const again = await instanceSource(prisma, config({ poolSize: 3 }));
    expect(again.forStep(7).map((i) => i.id)).toEqual(source.forStep(7).map((i) => i.id));
    // Another seed draws another pool (ids are cm2-300 … cm2-309).
    const other = await instanceSource(prisma, config({ poolSize: 3, seed: 6 }));
    const otherSeen = new Set<string>();
    for (let step = 1; step <= 12; step++) for (const inst of other.forStep(step)) otherSeen.add(inst.id);
    expect(otherSeen.size).toBe(3);
    expect([...otherSeen].sort()).not.toEqual([...seen].sort());
    // An id outside the pool is still accepted: instanceIds are looked up in the whole split.
    const outside = ["cm2-300", "cm2-301", "cm2-302", "cm2-303", "cm2-304", "cm2-305", "cm2-306", "cm2-307", "cm2-308", "cm2-309"].find((id) => !seen.has(id))!;
    const pinned = await instanceSource(prisma, config({ poolSize: 3, instanceIds: [outside] }));
    expect(pinned.forStep(1).map((i) => i.id)).toEqual([outside, outside, outside, outside]);
    // A pool larger than the split is the whole split.
    const big = await instanceSource(prisma, config({ poolSize: 50 }));
    const bigSeen = new Set<string>();
    for (let step = 1; step <= 30; step++) for (const inst of big.forStep(step)) bigSeen.add(inst.id);
    expect(bigSeen.size).toBe(10);
  });
});
