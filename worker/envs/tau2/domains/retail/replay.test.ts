import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashRetailDb } from "./model";
import { replayGoldActions } from "./adapter";
import { goldReplayFile, retailTestData } from "../../../../../test/fixtures/tau2-retail";

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

describe("gold replay of every training task matches tau2-bench v0.2.0", () => {
  const { db, tasks } = retailTestData();
  const gold = goldReplayFile();
  const goldById = new Map(gold.tasks.map((t) => [t.task_id, t]));

  it("hashes the untouched DB like the original", () => {
    expect(hashRetailDb(db)).toBe(gold.initial_db_hash);
    expect(hashRetailDb(db)).toBe("b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c");
  });

  it("covers all training tasks", () => {
    expect(tasks.length).toBe(74);
    expect(new Set(tasks.map((t) => t.id))).toEqual(new Set(goldById.keys()));
  });

  for (const task of retailTestData().tasks) {
    it(`task ${task.id}: error count, per-call text and final DB hash`, () => {
      const expected = goldById.get(task.id)!;
      const replay = replayGoldActions(task, db);
      expect(replay.results.length).toBe(expected.actions.length);
      replay.results.forEach((r, i) => {
        const want = expected.actions[i];
        expect({ i, name: r.name, error: r.error }).toEqual({ i, name: want.name, error: want.error });
        if (want.content !== undefined) expect(r.content).toBe(want.content);
        expect(r.content.length).toBe(want.content_length);
        expect(sha256(r.content), `${want.action_id} content`).toBe(want.content_sha256);
      });
      expect(replay.errors).toBe(expected.actions.filter((a) => a.error).length);
      expect(replay.db_hash).toBe(expected.final_db_hash);
      expect(replay.db_hash === gold.initial_db_hash).toBe(expected.db_unchanged);
    });
  }

  it("episodes never see each other's writes", () => {
    const writer = tasks.find((t) => t.id === "0")!;
    replayGoldActions(writer, db);
    expect(hashRetailDb(db)).toBe(gold.initial_db_hash);
    const again = replayGoldActions(writer, db);
    expect(again.db_hash).toBe(goldById.get("0")!.final_db_hash);
  });
});
