/**
 * Datasets through the real tRPC router against real Postgres: all-or-nothing CM2 import with line
 * numbers, skipInvalid, roles, paging. (The worker reading an import back as `dataset:<id or name>` is
 * worker/envs/dataset.int.test.ts.)
 */
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../../test/helpers";
import { cm2Jsonl, cm2Row } from "../../../test/fixtures/cm2";

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

  it("drops rows whose prompt is over max_prompt_length − 500 Qwen3 tokens and reports them by line", async () => {
    const caller = await callerFor(member.headers);
    const long = cm2Row(12);
    long.messages[0]!.content = "You are a travel assistant who answers precisely. ".repeat(400);
    const text = [JSON.stringify(cm2Row(11)), JSON.stringify(long), JSON.stringify(cm2Row(13))].join("\n");
    const res = await caller.datasets.import({ name: "weather-long", text });
    expect(res.imported).toBe(2);
    expect(res.tooLongCount).toBe(1);
    expect(res.tooLong[0]).toMatchObject({ line: 2 });
    expect(res.tooLong[0]!.message).toMatch(/prompt is \d+ Qwen3 tokens, over the limit of 3500/);
    const rows = await prisma.instance.findMany({ where: { dataset: { name: "weather-long" } }, select: { externalId: true }, orderBy: { externalId: "asc" } });
    expect(rows.map((r) => r.externalId)).toEqual(["cm2-11", "cm2-13"]);
    // No limit keeps it; a limit below every prompt rejects the file, naming each line.
    expect((await caller.datasets.import({ name: "weather-long-all", text, maxPromptLength: null })).imported).toBe(3);
    const none = await rejection(caller.datasets.import({ name: "weather-long-none", text, maxPromptLength: 600 }));
    expect(none.message).toContain("3 prompt(s) over the length limit");
    expect((await rejection(caller.datasets.import({ name: "weather-long-bad", text, maxPromptLength: 100 }))).code).toBe("BAD_REQUEST");
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
});
